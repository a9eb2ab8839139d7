//! Where the commands' output goes, and what happens when it cannot be written.
//!
//! One mechanism for every command:
//! - [`Out`] writes to stdout or to a file. Files go through [`AtomicFile`]: they appear whole
//!   when [`Out::finish`] succeeds and never otherwise, so a failure leaves what was there.
//! - A closed pipe on stdout (`margin predict … | head -1`) ends the command quietly with exit
//!   code 0; any other write error (a full disk, a file-size limit) is reported with exit code 1
//!   and the reason.
//! - [`warn`] writes a line to stderr and ignores a stderr that cannot be written (nothing can
//!   be reported about it anyway); no command uses `print!`, `println!` or `eprintln!`.
//! - [`check_outputs`] refuses an output that is also an input (or another output) before any
//!   output is touched.

use std::fmt;
use std::io::{BufWriter, Stdout, Write};
use std::path::{Path, PathBuf};

use core_linalg::io::{AtomicFile, same_file};

use crate::Failure;

enum Sink {
    Stdout(BufWriter<Stdout>),
    File(AtomicFile),
}

/// A command's output: stdout or a file written whole or not at all.
pub(crate) struct Out {
    sink: Sink,
    name: PathBuf,
}

/// Writes one formatted line to an [`Out`], turning a write error into the command's
/// [`Failure`]: `outln!(out, "rows: {n}")?;`.
macro_rules! outln {
    ($out:expr) => {
        $out.write_fmt(format_args!("\n"))
    };
    ($out:expr, $($arg:tt)*) => {
        $out.write_fmt(format_args!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use outln;

impl Out {
    /// Standard output (buffered; [`finish`](Out::finish) flushes it).
    pub(crate) fn stdout() -> Self {
        Out {
            sink: Sink::Stdout(BufWriter::with_capacity(1 << 16, std::io::stdout())),
            name: PathBuf::from("standard output"),
        }
    }

    /// A file at `path`, replaced only when [`finish`](Out::finish) succeeds.
    pub(crate) fn file(path: &Path) -> Result<Self, Failure> {
        let file = AtomicFile::create(path).map_err(|e| Failure::in_file(path, e))?;
        Ok(Out {
            sink: Sink::File(file),
            name: path.to_path_buf(),
        })
    }

    /// The file at `path` when one is given, stdout otherwise.
    pub(crate) fn file_or_stdout(path: Option<&Path>) -> Result<Self, Failure> {
        match path {
            Some(p) => Self::file(p),
            None => Ok(Self::stdout()),
        }
    }

    /// Writes formatted text (what [`outln!`] calls).
    pub(crate) fn write_fmt(&mut self, args: fmt::Arguments<'_>) -> Result<(), Failure> {
        let written = match &mut self.sink {
            Sink::Stdout(w) => w.write_fmt(args),
            Sink::File(w) => w.write_fmt(args),
        };
        written.map_err(|e| write_failure(&self.name, &e))
    }

    /// Writes raw bytes.
    pub(crate) fn write_all(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        let written = match &mut self.sink {
            Sink::Stdout(w) => w.write_all(bytes),
            Sink::File(w) => w.write_all(bytes),
        };
        written.map_err(|e| write_failure(&self.name, &e))
    }

    /// Flushes stdout, or puts the file in place.
    pub(crate) fn finish(self) -> Result<(), Failure> {
        match self.sink {
            Sink::Stdout(mut w) => w.flush().map_err(|e| write_failure(&self.name, &e)),
            Sink::File(f) => f.commit().map_err(|e| match e {
                core_linalg::Error::Io { source, .. } => write_failure(&self.name, &source),
                other => Failure::from(other),
            }),
        }
    }
}

/// What a failed write means for the command: a reader that went away (a closed pipe) ends it
/// quietly and successfully; anything else is a failure of ours to deliver (exit code 1).
pub(crate) fn write_failure(name: &Path, e: &std::io::Error) -> Failure {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return Failure::quiet();
    }
    Failure::internal(format!("cannot write to {}: {e}", name.display()))
}

/// Writes a line to stderr; a stderr that cannot be written is ignored (there is nowhere left
/// to report it).
pub(crate) fn warn(message: impl fmt::Display) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{message}");
}

/// Refuses outputs that are also inputs, or that name the same file twice, before anything is
/// written (exit code 2). Outputs that do not exist yet cannot be an existing input.
pub(crate) fn check_outputs(inputs: &[&Path], outputs: &[&Path]) -> Result<(), Failure> {
    for (k, out) in outputs.iter().enumerate() {
        if let Some(input) = inputs.iter().find(|i| same_file(i, out)) {
            return Err(Failure::usage(format!(
                "the output {} is also an input ({}): writing it would destroy the input; choose another output path",
                out.display(),
                input.display()
            )));
        }
        if let Some(other) = outputs[..k].iter().find(|o| *o == out || same_file(o, out)) {
            return Err(Failure::usage(format!(
                "{} is given as two outputs ({} and {}): choose distinct paths",
                out.display(),
                other.display(),
                out.display()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_that_is_an_input_is_refused_before_writing() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("x.txt");
        std::fs::write(&data, "1 1:1\n").unwrap();
        let spelled = dir.path().join(".").join("x.txt");
        let f = check_outputs(&[&data], &[&spelled]).err().unwrap();
        assert_eq!(f.code, 2);
        assert!(f.message.contains("also an input"), "{}", f.message);
        let fresh = dir.path().join("new.txt");
        assert!(check_outputs(&[&data], &[&fresh]).is_ok());
        let twice = check_outputs(&[&data], &[&fresh, &fresh]).err().unwrap();
        assert!(twice.message.contains("two outputs"), "{}", twice.message);
        assert_eq!(std::fs::read_to_string(&data).unwrap(), "1 1:1\n");
    }

    #[test]
    fn a_full_device_is_an_internal_failure_and_a_closed_pipe_is_quiet() {
        let full = write_failure(
            Path::new("out.txt"),
            &std::io::Error::from_raw_os_error(28), // ENOSPC
        );
        assert_eq!(full.code, 1);
        assert!(full.message.contains("cannot write to out.txt"));
        let pipe = write_failure(
            Path::new("standard output"),
            &std::io::Error::from(std::io::ErrorKind::BrokenPipe),
        );
        assert_eq!((pipe.code, pipe.message.as_str()), (0, ""));
    }

    #[test]
    fn a_file_appears_only_when_finished() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.txt");
        std::fs::write(&path, "old\n").unwrap();
        {
            let mut out = Out::file(&path).unwrap();
            outln!(out, "new {}", 1).unwrap();
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
        let mut out = Out::file(&path).unwrap();
        outln!(out, "new {}", 2).unwrap();
        out.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new 2\n");
    }
}
