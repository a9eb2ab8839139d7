//! `margin-executor`: a Ballista executor that knows margin's functions.

use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    margin_ballista::log_to_stderr();
    let options = margin_ballista::ExecutorOptions::parse();
    match margin_ballista::run_executor(&options).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("margin-executor: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
