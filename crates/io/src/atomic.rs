//! Files written whole or not at all.
//!
//! Every file margin writes (models, predictions, scaled data, reports, charts) goes through
//! [`AtomicFile`]: the bytes go to a new temporary file beside the target, which is flushed,
//! synced to disk and then renamed over the target. A write that fails half way (a full disk, a
//! file-size limit, a crash) leaves the target as it was; two processes saving the same path
//! each rename a complete file, so the last one wins whole.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use margin_core::{Error, Result};

/// A file being written beside its target; [`commit`](AtomicFile::commit) puts it in place.
/// Dropped without a commit, it removes its temporary file and the target is untouched.
///
/// A target that exists and is not a regular file (`/dev/stdout`, a named pipe) cannot be
/// replaced, and holds nothing to lose: it is written directly.
///
/// ```
/// use std::io::Write;
/// use margin_io::AtomicFile;
///
/// let dir = std::env::temp_dir().join(format!("margin-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("out.txt");
/// std::fs::write(&path, "old")?;
/// {
///     let mut f = AtomicFile::create(&path)?;
///     write!(f, "half a").map_err(|e| margin_core::Error::io(&path, e))?;
///     // Dropped without commit: the old contents stay.
/// }
/// assert_eq!(std::fs::read_to_string(&path)?, "old");
/// let mut f = AtomicFile::create(&path)?;
/// write!(f, "new").map_err(|e| margin_core::Error::io(&path, e))?;
/// f.commit()?;
/// assert_eq!(std::fs::read_to_string(&path)?, "new");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    /// `None` when the target is written directly (not a regular file).
    tmp: Option<PathBuf>,
    out: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing `path`: creates a new temporary file in the same directory.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let target = path.as_ref().to_path_buf();
        if let Ok(meta) = std::fs::metadata(&target) {
            if meta.is_dir() {
                return Err(Error::io(
                    &target,
                    std::io::Error::new(
                        std::io::ErrorKind::IsADirectory,
                        "is a directory: give a file name",
                    ),
                ));
            }
            if !meta.is_file() {
                let file = OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(|e| Error::io(&target, e))?;
                return Ok(Self {
                    target,
                    tmp: None,
                    out: Some(BufWriter::with_capacity(1 << 16, file)),
                });
            }
        }
        let (tmp, file) = create_temporary(&target)?;
        if let Ok(meta) = std::fs::metadata(&target) {
            // A replaced file keeps its permissions.
            let _ = file.set_permissions(meta.permissions());
        }
        Ok(Self {
            target,
            tmp: Some(tmp),
            out: Some(BufWriter::with_capacity(1 << 16, file)),
        })
    }

    /// The path being written.
    pub fn path(&self) -> &Path {
        &self.target
    }

    /// Flushes, syncs and renames the temporary file over the target.
    pub fn commit(mut self) -> Result<()> {
        let Some(out) = self.out.take() else {
            return Ok(());
        };
        let file = out
            .into_inner()
            .map_err(|e| Error::io(&self.target, e.into_error()))?;
        let Some(tmp) = self.tmp.take() else {
            return Ok(());
        };
        let placed = file
            .sync_all()
            .and_then(|()| std::fs::rename(&tmp, &self.target));
        if let Err(e) = placed {
            let _ = std::fs::remove_file(&tmp);
            return Err(Error::io(&self.target, e));
        }
        // The rename itself is durable once the directory is synced (best effort: some
        // file systems refuse to open a directory for syncing).
        if let Some(dir) = parent_dir(&self.target)
            && let Ok(d) = File::open(dir)
        {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.out {
            Some(out) => out.write(buf),
            None => Err(std::io::Error::other("file already committed")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.out {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            drop(self.out.take());
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Writes `path` whole or not at all: `write` fills a temporary file that replaces `path` only
/// when everything was written.
pub fn write_atomically(
    path: impl AsRef<Path>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let path = path.as_ref();
    let mut file = AtomicFile::create(path)?;
    write(&mut file).map_err(|e| Error::io(path, e))?;
    file.commit()
}

fn parent_dir(path: &Path) -> Option<&Path> {
    match path.parent() {
        Some(p) if p.as_os_str().is_empty() => Some(Path::new(".")),
        other => other,
    }
}

/// A new file `.NAME.PID.N.tmp` beside `target`, created exclusively so that concurrent
/// writers never share one.
fn create_temporary(target: &Path) -> Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = target
        .file_name()
        .ok_or_else(|| {
            Error::io(
                target,
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"),
            )
        })?
        .to_string_lossy()
        .into_owned();
    let dir = parent_dir(target).unwrap_or(Path::new("."));
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(target, e)),
        }
    }
}

/// Whether two paths name the same file (by device and inode where both exist; otherwise by
/// their canonical form). Used to refuse an output that is also an input.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return ma.dev() == mb.dev() && ma.ino() == mb.ino();
        }
    }
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(ca), Ok(cb)) => ca == cb,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.margin");
        std::fs::write(&path, b"precious").unwrap();
        let err = write_atomically(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(err.to_string().contains("disk full"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), b"precious");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn a_successful_write_replaces_and_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        std::fs::write(&path, b"old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&path, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn a_directory_target_is_refused_and_a_missing_directory_is_an_io_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            write_atomically(dir.path(), |w| w.write_all(b"x")),
            Err(Error::Io { .. })
        ));
        assert!(matches!(
            write_atomically(dir.path().join("no/such/dir/f"), |w| w.write_all(b"x")),
            Err(Error::Io { .. })
        ));
    }

    #[test]
    fn concurrent_writers_each_place_a_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("same.txt");
        std::thread::scope(|s| {
            for t in 0..8u8 {
                let path = &path;
                s.spawn(move || {
                    let body = vec![b'a' + t; 100_000];
                    write_atomically(path, |w| w.write_all(&body)).unwrap();
                });
            }
        });
        let got = std::fs::read(&path).unwrap();
        assert_eq!(got.len(), 100_000);
        assert!(got.iter().all(|&b| b == got[0]));
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn special_files_are_written_in_place() {
        let mut f = AtomicFile::create("/dev/null").unwrap();
        f.write_all(b"discarded").unwrap();
        f.commit().unwrap();
    }

    #[test]
    fn same_file_sees_through_spellings() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, b"x").unwrap();
        let other = dir.path().join(".").join("a.txt");
        assert!(same_file(&path, &other));
        assert!(!same_file(&path, &dir.path().join("b.txt")));
    }
}
