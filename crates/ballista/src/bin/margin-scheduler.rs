//! `margin-scheduler`: a Ballista scheduler that knows margin's functions.

use clap::Parser;
use datafusion::error::DataFusionError;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    margin_ballista::log_to_stderr();
    let options = margin_ballista::SchedulerOptions::parse();
    match margin_ballista::run_scheduler(&options).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // A bad option exits 2, as clap's usage errors do.
        Err(e @ DataFusionError::Configuration(_)) => {
            eprintln!("margin-scheduler: {e}");
            std::process::ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("margin-scheduler: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
