//! Reading a site's files as the build may (issue 43): only regular files, only inside a given
//! folder once links are resolved, and never more than a cap.
//!
//! Docs come from repositories that accept contributions, and git stores symlinks and lets a
//! page name any path in an include: a link to `/proc/self/environ` or an include of
//! `../etc/app.conf` must not put the build machine's secrets into a public index, and a FIFO
//! or `/dev/zero` must not hang the build or fill its memory. The file type is checked before
//! a file is opened (a FIFO blocks on open), again on the open file, and the read is bounded
//! whatever size the file reports (`/proc` files report 0).

use std::fmt;
use std::fs::{self, File, FileType};
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};

/// The most bytes the build reads of any one file: far above any real page (the largest page
/// of the eval's corpora is under 1 MB), far below what would strain a CI machine's memory.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Why a file was not read.
#[derive(Debug)]
#[non_exhaustive]
pub enum FileError {
    /// Its links resolve to `target`, outside `fence`, the folder the build may read.
    Outside { target: PathBuf, fence: PathBuf },
    /// It is no regular file (a folder, FIFO, socket or device): never opened.
    NotRegular { what: &'static str },
    /// It holds more than `cap` bytes.
    TooLarge { cap: u64 },
    /// It could not be resolved or read.
    Io(io::Error),
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Outside { target, fence } => write!(
                f,
                "resolves to {}, outside {}, the folder the build reads",
                target.display(),
                fence.display()
            ),
            FileError::NotRegular { what } => write!(f, "is {what}, which the build never opens"),
            FileError::TooLarge { cap } => write!(
                f,
                "holds more than {cap} bytes, the most the build reads of one file"
            ),
            FileError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for FileError {}

impl From<io::Error> for FileError {
    fn from(e: io::Error) -> FileError {
        FileError::Io(e)
    }
}

/// What kind of file a type names, for messages: "a FIFO", "a folder".
pub fn describe(file_type: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_symlink() {
        "a link"
    } else if file_type.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// `path` with every link resolved, when that lies inside `fence` (a canonical folder).
pub fn resolve_within(path: &Path, fence: &Path) -> Result<PathBuf, FileError> {
    let target = fs::canonicalize(path)?;
    if target.starts_with(fence) {
        Ok(target)
    } else {
        Err(FileError::Outside {
            target,
            fence: fence.to_path_buf(),
        })
    }
}

/// The bytes of the regular file at `path` (links followed), at most `cap` of them: anything
/// else is refused before it is opened.
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, FileError> {
    let meta = fs::metadata(path)?;
    if !meta.is_file() {
        return Err(FileError::NotRegular {
            what: describe(meta.file_type()),
        });
    }
    if meta.len() > cap {
        return Err(FileError::TooLarge { cap });
    }
    let file = File::open(path)?;
    // The path may have been swapped between the check and the open.
    let opened = file.metadata()?;
    if !opened.is_file() {
        return Err(FileError::NotRegular {
            what: describe(opened.file_type()),
        });
    }
    // A file may grow after the check, or report a size it does not hold.
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(cap)).unwrap_or(0));
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(FileError::TooLarge { cap });
    }
    Ok(bytes)
}

/// The resolved path and bytes of the file at `path`, when it lies inside `fence` (canonical),
/// is a regular file and holds at most `cap` bytes.
pub fn read_within(path: &Path, fence: &Path, cap: u64) -> Result<(PathBuf, Vec<u8>), FileError> {
    let target = resolve_within(path, fence)?;
    let bytes = read_capped(&target, cap)?;
    Ok((target, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_capped_and_fenced() {
        let dir = tempfile::tempdir().unwrap();
        let fence = fs::canonicalize(dir.path()).unwrap().join("in");
        fs::create_dir(&fence).unwrap();
        fs::write(fence.join("a.md"), "12345").unwrap();
        fs::write(dir.path().join("out.md"), "secret").unwrap();
        assert_eq!(read_capped(&fence.join("a.md"), 5).unwrap(), b"12345");
        assert!(matches!(
            read_capped(&fence.join("a.md"), 4),
            Err(FileError::TooLarge { cap: 4 })
        ));
        assert!(matches!(
            read_within(&fence.join("../out.md"), &fence, 100),
            Err(FileError::Outside { .. })
        ));
        assert!(matches!(
            read_capped(&fence, 100),
            Err(FileError::NotRegular { what: "a folder" })
        ));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_device_is_never_read_and_a_lying_size_is_still_capped() {
        assert!(matches!(
            read_capped(Path::new("/dev/zero"), 100),
            Err(FileError::NotRegular {
                what: "a character device"
            })
        ));
        // /proc files report a size of 0 and hold more.
        if let Ok(bytes) = fs::read("/proc/self/maps") {
            if bytes.len() > 10 {
                assert!(matches!(
                    read_capped(Path::new("/proc/self/maps"), 10),
                    Err(FileError::TooLarge { cap: 10 })
                ));
            }
        }
    }
}
