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
/// replaced, and holds nothing to lose: it is written directly. A symbolic link is written
/// through: the file it points to is replaced (beside it), and the link stays a link.
/// Temporary files of this target that a killed process left behind (their process no longer
/// runs) are removed when the target is next written.
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
        let target = through_links(path.as_ref())?;
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
        remove_stale_temporaries(&target);
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

/// The file `path` names once every symbolic link on the way is followed (a link to a file
/// not yet there gives that file's path), so that a save replaces the link's target rather
/// than the link. The links are followed one at a time, as the system would, up to its limit
/// of 40.
fn through_links(path: &Path) -> Result<PathBuf> {
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&at).map_err(|e| Error::io(&at, e))?;
                at = match parent_dir(&at) {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(Error::io(
        path,
        std::io::Error::other("too many levels of symbolic links"),
    ))
}

/// `target`'s file name, for its temporary files.
fn file_name(target: &Path) -> Result<String> {
    Ok(target
        .file_name()
        .ok_or_else(|| {
            Error::io(
                target,
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"),
            )
        })?
        .to_string_lossy()
        .into_owned())
}

/// Removes the temporary files `.NAME.PID.N.tmp` of `target` whose process no longer runs
/// (killed while writing: a failed write removes its own). Files of running processes,
/// this one included, may be being written and stay. Best effort: where processes cannot be
/// looked up (no `/proc`), nothing is removed.
fn remove_stale_temporaries(target: &Path) {
    let (Ok(name), Some(dir)) = (file_name(target), parent_dir(target)) else {
        return;
    };
    if !Path::new("/proc/self").exists() {
        return;
    }
    let prefix = format!(".{name}.");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(rest) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|r| r.strip_suffix(".tmp"))
        else {
            continue;
        };
        let Some((pid, n)) = rest.split_once('.') else {
            continue;
        };
        let (Ok(pid), true) = (pid.parse::<u32>(), n.bytes().all(|b| b.is_ascii_digit())) else {
            continue;
        };
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// A new file `.NAME.PID.N.tmp` beside `target`, created exclusively so that concurrent
/// writers never share one.
fn create_temporary(target: &Path) -> Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = file_name(target)?;
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
    fn symbolic_links_are_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.margin");
        std::fs::write(&real, b"old").unwrap();
        std::os::unix::fs::symlink("real.margin", dir.path().join("link.margin")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("link.margin"), dir.path().join("chain"))
            .unwrap();
        write_atomically(dir.path().join("chain"), |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        for link in ["link.margin", "chain"] {
            let meta = std::fs::symlink_metadata(dir.path().join(link)).unwrap();
            assert!(meta.file_type().is_symlink(), "{link} was replaced");
        }
        // A link to a file not yet there creates that file.
        std::os::unix::fs::symlink("later.txt", dir.path().join("dangling")).unwrap();
        write_atomically(dir.path().join("dangling"), |w| w.write_all(b"made")).unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("later.txt")).unwrap(),
            b"made"
        );
        // A loop is an error, not a hang.
        std::os::unix::fs::symlink("loop", dir.path().join("loop")).unwrap();
        let e = write_atomically(dir.path().join("loop"), |w| w.write_all(b"x")).unwrap_err();
        assert!(e.to_string().contains("symbolic links"), "{e}");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn temporaries_of_dead_processes_are_removed_on_the_next_save() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.margin");
        // A process that has ended: its id is not running any more (a reused id only keeps
        // the file).
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let stale = format!(".model.margin.{dead}.0.tmp");
        let ours = format!(".model.margin.{}.999.tmp", std::process::id());
        let other_target = format!(".other.margin.{dead}.0.tmp");
        for name in [&stale, &ours, &other_target] {
            std::fs::write(dir.path().join(name), b"half").unwrap();
        }
        write_atomically(&path, |w| w.write_all(b"whole")).unwrap();
        let mut left = leftovers(dir.path());
        left.sort();
        let mut expected = vec![ours, other_target];
        expected.sort();
        assert_eq!(left, expected);
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
