//! Where the commands' output goes, and what happens when it cannot be written.
//!
//! One mechanism for every command:
//! - [`Out`] writes to stdout or to a file. Files go through [`AtomicFile`]: they appear whole
//!   when [`Out::finish`] succeeds and never otherwise, so a failure leaves what was there.
//! - A closed pipe on stdout (`margin predict … | head -1`) ends the command quietly with exit
//!   code 0; any other write error (a full disk, a file-size limit) is reported with exit code 1
//!   and the reason.
//! - [`warn`] writes a line to stderr and ignores a stderr that cannot be written (nothing can
//!   be reported about it anyway); no command prints with the standard library's printing
//!   macros, which panic when their stream cannot be written.
//! - [`check_outputs`] refuses an output that is also an input (or another output), or one
//!   whose directory does not exist, before any output is touched.
//! - Files written by library functions (charts) report their failures through
//!   [`output_error`], with the same meaning.
//! - [`Progress`] draws a progress line on stderr when stderr is a terminal.

use std::fmt;
use std::io::{BufWriter, IsTerminal, Stdout, Write};
use std::path::{Path, PathBuf};

use margin_io::{AtomicFile, same_file};

use crate::Failure;

enum Sink {
    Stdout(BufWriter<Stdout>),
    File(AtomicFile),
}

impl Sink {
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Sink::Stdout(w) => w,
            Sink::File(w) => w,
        }
    }
}

/// A writer lent to a library function (`write_csv_to`, `write_libsvm_to`) that keeps the
/// first I/O error it passes on: some libraries wrap it in their own error (the `csv` crate
/// turns a closed pipe into an opaque "other" error), and its kind decides the exit code.
struct Tracked<'a> {
    inner: &'a mut dyn Write,
    failed: Option<std::io::Error>,
}

impl Tracked<'_> {
    fn track<T>(&mut self, r: std::io::Result<T>) -> std::io::Result<T> {
        r.map_err(|e| {
            let copy = match e.raw_os_error() {
                Some(code) => std::io::Error::from_raw_os_error(code),
                None => std::io::Error::new(e.kind(), e.to_string()),
            };
            self.failed.get_or_insert(e);
            copy
        })
    }
}

impl Write for Tracked<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.inner.write(buf);
        self.track(r)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.inner.flush();
        self.track(r)
    }
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
        let written = self.sink.writer().write_fmt(args);
        written.map_err(|e| write_failure(&self.name, &e))
    }

    /// Writes raw bytes.
    pub(crate) fn write_all(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        let written = self.sink.writer().write_all(bytes);
        written.map_err(|e| write_failure(&self.name, &e))
    }

    /// Lets a library writer (`write_csv_to`, `write_libsvm_to`) write here: its I/O failure
    /// means what any write failure on this output means; its other errors (a label LIBSVM
    /// cannot hold) are the input's.
    pub(crate) fn write_with(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> margin_core::Result<()>,
    ) -> Result<(), Failure> {
        write_tracked(self.sink.writer(), &self.name, write)
    }

    /// Flushes stdout, or puts the file in place.
    pub(crate) fn finish(self) -> Result<(), Failure> {
        match self.sink {
            Sink::Stdout(mut w) => w.flush().map_err(|e| write_failure(&self.name, &e)),
            Sink::File(f) => f.commit().map_err(|e| output_error(&self.name, e)),
        }
    }
}

/// Runs a library writer on `inner` (the output `name`), judging its failure by the first I/O
/// error it met rather than by what the library made of it.
fn write_tracked(
    inner: &mut dyn Write,
    name: &Path,
    write: impl FnOnce(&mut dyn Write) -> margin_core::Result<()>,
) -> Result<(), Failure> {
    let mut tracked = Tracked {
        inner,
        failed: None,
    };
    let result = write(&mut tracked);
    match (result, tracked.failed) {
        (Ok(()), _) => Ok(()),
        (Err(_), Some(e)) => Err(write_failure(name, &e)),
        (Err(e), None) => Err(output_error(name, e)),
    }
}

/// What a failed write means for the command: a reader that went away (a closed pipe) ends it
/// quietly and successfully; anything else is a failure of ours to deliver (exit code 1).
pub(crate) fn write_failure(name: &Path, e: &std::io::Error) -> Failure {
    if is_broken_pipe(e) {
        return Failure::quiet();
    }
    Failure::internal(format!("cannot write to {}: {e}", name.display()))
}

/// Whether an I/O error, or one it wraps, says that the reader went away.
pub(crate) fn is_broken_pipe(e: &std::io::Error) -> bool {
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = current {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::BrokenPipe {
                return true;
            }
            // `source()` skips an io::Error's own payload; look inside it.
            if let Some(inner) = io.get_ref() {
                current = Some(inner);
                continue;
            }
        }
        current = err.source();
    }
    false
}

/// A library's failure to write output `name` (a chart, a committed file): an I/O error means
/// what [`write_failure`] says; anything else is reported as the library's error.
pub(crate) fn output_error(name: &Path, e: margin_core::Error) -> Failure {
    match e {
        margin_core::Error::Io { source, .. } => write_failure(name, &source),
        other => Failure::from(other),
    }
}

/// Writes a line to stderr; a stderr that cannot be written is ignored (there is nowhere left
/// to report it).
pub(crate) fn warn(message: impl fmt::Display) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{message}");
}

/// A progress line on stderr (`[done/total] what`), drawn only when stderr is a terminal, so
/// that logs and pipes get the results alone. (Drawn by hand: a progress-bar crate would be one
/// more dependency for a line that changes a dozen times.)
pub(crate) struct Progress {
    /// Whether stderr is a terminal.
    enabled: bool,
    /// The number of steps.
    total: usize,
}

impl Progress {
    /// A progress line over `total` steps.
    pub(crate) fn new(total: usize) -> Self {
        Self {
            enabled: std::io::stderr().is_terminal(),
            total,
        }
    }

    /// Replaces the line with `[done/total] what`.
    pub(crate) fn show(&self, done: usize, what: &str) {
        // `\x1b[K` clears what a longer previous line left to the right.
        self.draw(format_args!("\r[{done}/{}] {what}\x1b[K", self.total));
    }

    /// Erases the line before the results are printed.
    pub(crate) fn clear(&self) {
        self.draw(format_args!("\r\x1b[K"));
    }

    fn draw(&self, text: fmt::Arguments<'_>) {
        if self.enabled {
            let mut err = std::io::stderr().lock();
            let _ = err.write_fmt(text).and_then(|()| err.flush());
        }
    }
}

/// Refuses outputs that are also inputs, that name the same file twice, or whose directory
/// does not exist, before anything is written or computed (exit code 2). Outputs that do not
/// exist yet cannot be an existing input.
pub(crate) fn check_outputs(inputs: &[&Path], outputs: &[&Path]) -> Result<(), Failure> {
    for (k, out) in outputs.iter().enumerate() {
        let dir = match out.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            return Err(Failure::usage(format!(
                "cannot write {}: the directory {} does not exist",
                out.display(),
                dir.display()
            )));
        }
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
        assert!(check_outputs(&[&data], &[Path::new("relative.txt")]).is_ok());
        let nowhere = dir.path().join("no/such/dir/out.txt");
        let f = check_outputs(&[&data], &[&nowhere]).err().unwrap();
        assert_eq!(f.code, 2);
        assert!(f.message.contains("does not exist"), "{}", f.message);
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

    /// A reader that went away, or a full disk, after `room` bytes.
    struct Failing {
        room: usize,
        error: fn() -> std::io::Error,
    }

    impl Write for Failing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.room == 0 {
                return Err((self.error)());
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_library_writer_that_wraps_the_error_still_ends_quietly_on_a_closed_pipe() {
        use margin_core::{Dataset, DenseMatrix, Targets};
        use margin_io::{CsvOptions, write_csv_to, write_libsvm_to};
        let x = DenseMatrix::from_row_major((0..2000).map(f64::from).collect(), 1000, 2).unwrap();
        let data = Dataset::new(x, Targets::Values(vec![1.0; 1000]))
            .unwrap()
            .with_feature_names(vec!["a".into(), "b".into()])
            .unwrap();
        let pipe = || std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let full = || std::io::Error::from_raw_os_error(28);
        // The csv crate turns the closed pipe into an opaque error: tracked, it stays quiet.
        let mut w = Failing {
            room: 100,
            error: pipe,
        };
        let f = write_tracked(&mut w, Path::new("standard output"), |mut w| {
            write_csv_to(&mut w, &data, &CsvOptions::default())
        })
        .unwrap_err();
        assert_eq!((f.code, f.message.as_str()), (0, ""));
        let mut w = Failing {
            room: 100,
            error: full,
        };
        let f = write_tracked(&mut w, Path::new("out.csv"), |mut w| {
            write_csv_to(&mut w, &data, &CsvOptions::default())
        })
        .unwrap_err();
        assert_eq!(f.code, 1);
        assert!(
            f.message.starts_with("cannot write to out.csv: "),
            "{}",
            f.message
        );
        let mut w = Failing {
            room: 100,
            error: pipe,
        };
        let f = write_tracked(&mut w, Path::new("standard output"), |mut w| {
            write_libsvm_to(&mut w, &data)
        })
        .unwrap_err();
        assert_eq!(f.code, 0);
        // An error that is not the writer's (text labels in a LIBSVM file) is the input's.
        let text = Dataset::new(
            DenseMatrix::from_row_major(vec![1.0], 1, 1).unwrap(),
            Targets::Classes(margin_core::Classes::from_text(&["a"])),
        )
        .unwrap();
        let mut w = Failing {
            room: 1000,
            error: full,
        };
        let f = write_tracked(&mut w, Path::new("out.txt"), |mut w| {
            write_libsvm_to(&mut w, &text)
        })
        .unwrap_err();
        assert_eq!(f.code, 2, "{}", f.message);
    }

    #[test]
    fn a_broken_pipe_is_found_inside_wrapping_errors() {
        let wrapped = std::io::Error::other(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert!(is_broken_pipe(&wrapped));
        assert!(!is_broken_pipe(&std::io::Error::other("disk on fire")));
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
