//! `margin-scheduler`: a Ballista scheduler that knows margin's functions.

use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    margin_ballista::log_to_stderr();
    let options = margin_ballista::SchedulerOptions::parse();
    match margin_ballista::run_scheduler(&options).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("margin-scheduler: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
