//! Where the system loader finds a DT_NEEDED library: RPATH, LD_LIBRARY_PATH, RUNPATH,
//! /etc/ld.so.conf and the default directories.

use std::path::{Path, PathBuf};

use crate::elf::{ElfFacts, read_elf};

pub(crate) struct ElfNeeds {
    pub(crate) needed: Vec<String>,
    pub(crate) rpath: Vec<String>,
    pub(crate) runpath: Vec<String>,
}

/// Where the loader looks for a DT_NEEDED name.
pub(crate) struct SearchPath {
    ld_library_path: Vec<PathBuf>,
    conf_dirs: Vec<PathBuf>,
}

impl SearchPath {
    pub(crate) fn new() -> SearchPath {
        let ld_library_path = std::env::var("LD_LIBRARY_PATH")
            .map(|v| {
                v.split(':')
                    .filter(|s| !s.is_empty())
                    .map(PathBuf::from)
                    .collect()
            })
            .unwrap_or_default();
        let mut conf_dirs = Vec::new();
        read_ld_so_conf(Path::new("/etc/ld.so.conf"), &mut conf_dirs, 0);
        SearchPath {
            ld_library_path,
            conf_dirs,
        }
    }

    /// The library the loader would map for `name`, read as ELF of the binary's class and
    /// machine (other candidates are skipped, as the loader skips them).
    pub(crate) fn find(
        &self,
        name: &str,
        needs: &ElfNeeds,
        origin: Option<&Path>,
        binary: &ElfFacts,
    ) -> Option<(PathBuf, Vec<u8>, ElfFacts)> {
        let expand = |dir: &str| -> PathBuf {
            let origin = origin
                .map(|o| o.display().to_string())
                .unwrap_or_else(|| ".".into());
            PathBuf::from(
                dir.replace("${ORIGIN}", &origin)
                    .replace("$ORIGIN", &origin),
            )
        };
        let mut candidates: Vec<PathBuf> = Vec::new();
        if name.contains('/') {
            candidates.push(PathBuf::from(name));
        } else {
            let split = |list: &[String]| -> Vec<PathBuf> {
                list.iter()
                    .flat_map(|l| l.split(':').map(str::to_string).collect::<Vec<_>>())
                    .filter(|d| !d.is_empty())
                    .map(|d| expand(&d))
                    .collect()
            };
            let mut dirs = Vec::new();
            if needs.runpath.is_empty() {
                dirs.extend(split(&needs.rpath));
            }
            dirs.extend(self.ld_library_path.iter().cloned());
            dirs.extend(split(&needs.runpath));
            dirs.extend(self.conf_dirs.iter().cloned());
            let defaults: &[&str] = if binary.class64 {
                &["/lib64", "/usr/lib64", "/lib", "/usr/lib"]
            } else {
                &["/lib32", "/usr/lib32", "/lib", "/usr/lib"]
            };
            dirs.extend(defaults.iter().map(PathBuf::from));
            candidates.extend(dirs.into_iter().map(|d| d.join(name)));
        }
        for candidate in candidates {
            let Ok(data) = std::fs::read(&candidate) else {
                continue;
            };
            let Ok(facts) = read_elf(&data) else {
                continue;
            };
            if facts.class64 == binary.class64 && facts.machine == binary.machine {
                return Some((candidate, data, facts));
            }
        }
        None
    }
}

/// Directories from /etc/ld.so.conf and the files it includes (what ldconfig caches).
fn read_ld_so_conf(path: &Path, dirs: &mut Vec<PathBuf>, depth: usize) {
    if depth > 8 {
        return;
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(pattern) = line.strip_prefix("include").map(str::trim) {
            let pattern = if pattern.starts_with('/') {
                PathBuf::from(pattern)
            } else {
                path.parent().unwrap_or(Path::new("/")).join(pattern)
            };
            for file in expand_glob(&pattern) {
                read_ld_so_conf(&file, dirs, depth + 1);
            }
        } else if line.starts_with('/') {
            let dir = PathBuf::from(line);
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
}

/// `dir/*.conf`-style patterns: a `*` in the file name only, as ld.so.conf uses them.
fn expand_glob(pattern: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (pattern.parent(), pattern.file_name()) else {
        return Vec::new();
    };
    let name = name.to_string_lossy();
    let Some((head, tail)) = name.split_once('*') else {
        return vec![pattern.to_path_buf()];
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| {
                    n.starts_with(head) && n.ends_with(tail) && n.len() >= head.len() + tail.len()
                })
                .map(|n| dir.join(n))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ld_so_conf_includes_are_followed_in_order_without_repeats() {
        let dir = tempfile::tempdir().unwrap();
        let conf_d = dir.path().join("ld.so.conf.d");
        std::fs::create_dir(&conf_d).unwrap();
        std::fs::write(conf_d.join("b.conf"), "/opt/b/lib\n/usr/local/lib\n").unwrap();
        std::fs::write(conf_d.join("a.conf"), "# comment\n/opt/a/lib # trailing\n").unwrap();
        std::fs::write(conf_d.join("ignored.txt"), "/opt/ignored\n").unwrap();
        let conf = dir.path().join("ld.so.conf");
        std::fs::write(
            &conf,
            "/usr/local/lib\ninclude ld.so.conf.d/*.conf\nrelative/dir\n\n",
        )
        .unwrap();
        let mut dirs = Vec::new();
        read_ld_so_conf(&conf, &mut dirs, 0);
        assert_eq!(
            dirs,
            ["/usr/local/lib", "/opt/a/lib", "/opt/b/lib"].map(PathBuf::from)
        );
    }

    #[test]
    fn an_include_loop_stops_and_a_missing_file_gives_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("loop.conf");
        std::fs::write(&conf, format!("/opt/loop\ninclude {}\n", conf.display())).unwrap();
        let mut dirs = Vec::new();
        read_ld_so_conf(&conf, &mut dirs, 0);
        assert_eq!(dirs, [PathBuf::from("/opt/loop")]);
        let mut none = Vec::new();
        read_ld_so_conf(&dir.path().join("absent.conf"), &mut none, 0);
        assert!(none.is_empty());
    }

    #[test]
    fn globs_match_the_file_name_only() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["x.conf", "y.conf", "z.conf.bak", ".conf"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        assert_eq!(
            expand_glob(&dir.path().join("*.conf")),
            [".conf", "x.conf", "y.conf"].map(|n| dir.path().join(n))
        );
        let plain = dir.path().join("x.conf");
        assert_eq!(expand_glob(&plain), std::slice::from_ref(&plain));
    }
}
