//! Writes the seed corpus of the `model_file` fuzz target: one input per sound fitted model of
//! every kind (`margin_fuzz::seeds`), named `<kind>-<n>`, into the directory given (default
//! `fuzz/corpus/model_file`, relative to the repository root).

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let dir = std::env::args_os()
        .nth(1)
        .map_or_else(|| PathBuf::from("fuzz/corpus/model_file"), PathBuf::from);
    std::fs::create_dir_all(&dir)?;
    let seeds = margin_fuzz::seeds();
    for (n, (kind, input)) in seeds.iter().enumerate() {
        std::fs::write(dir.join(format!("{kind}-{n}")), input)?;
    }
    println!(
        "{} seeds of {} kinds in {}",
        seeds.len(),
        margin_fuzz::KINDS.len(),
        dir.display()
    );
    Ok(())
}
