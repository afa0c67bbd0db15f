//! Unit tests of the file roots: where writes may go, whole-or-nothing writes, and the
//! refusals of links, FIFOs and files with other hard links.

use super::*;

#[test]
fn a_working_directory_of_slash_or_home_is_not_a_root() {
    let tmp = PathBuf::from("/tmp");
    let home = Some(PathBuf::from("/home/u"));
    let roots = |cwd: &str, data: Option<&str>| {
        default_roots(
            Some(PathBuf::from(cwd)),
            home.clone(),
            data.map(PathBuf::from),
            tmp.clone(),
        )
    };
    assert_eq!(
        roots("/work/proj", None),
        vec![PathBuf::from("/work/proj"), tmp.clone()]
    );
    assert_eq!(
        roots("/", None),
        vec![
            PathBuf::from("/home/u/.local/share/mobile-mcp"),
            tmp.clone()
        ]
    );
    assert_eq!(
        roots("/home/u", Some("/data")),
        vec![PathBuf::from("/data/mobile-mcp"), tmp.clone()]
    );
    // A relative XDG_DATA_HOME is ignored, as the spec says.
    assert_eq!(
        roots("/home/u", Some("rel")),
        vec![
            PathBuf::from("/home/u/.local/share/mobile-mcp"),
            tmp.clone()
        ]
    );
}

#[test]
fn writes_only_under_roots_with_the_right_extension() {
    let root = std::env::temp_dir().join(format!("mm-files-{}", std::process::id()));
    let outside = std::env::temp_dir().join(format!("mm-out-{}", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let roots = FileRoots::new([root.clone()]);
    let ok = roots
        .check_write(root.join("a.PNG").to_str().unwrap(), &["png"], false)
        .unwrap();
    assert!(ok.path().starts_with(std::fs::canonicalize(&root).unwrap()));
    let e = roots
        .check_write(root.join("a.gif").to_str().unwrap(), &["png", "jpg"], false)
        .unwrap_err();
    assert!(e.contains(".png, .jpg"), "{e}");
    let e = roots
        .check_write(root.join("../x.png").to_str().unwrap(), &["png"], false)
        .unwrap_err();
    assert!(e.contains("outside the allowed folders"), "{e}");
    let e = roots
        .check_write(
            root.join("missing/x.png").to_str().unwrap(),
            &["png"],
            false,
        )
        .unwrap_err();
    assert!(e.contains("does not exist"), "{e}");
    #[cfg(unix)]
    {
        let link = root.join("link.png");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(outside.join("t.png"), &link).unwrap();
        std::fs::write(outside.join("t.png"), b"x").unwrap();
        let e = roots
            .check_write(link.to_str().unwrap(), &["png"], true)
            .unwrap_err();
        assert!(e.contains("outside"), "{e}");
        let e = roots.open_package(link.to_str().unwrap(), &[]).unwrap_err();
        assert!(e.contains("outside"), "{e}");
    }
    let e = roots.open_package("", &[]).unwrap_err();
    assert!(e.contains("empty"));
    std::fs::remove_dir_all(&root).ok();
    std::fs::remove_dir_all(&outside).ok();
}

#[test]
fn a_staged_write_lands_whole_or_not_at_all() {
    let root = tempfile_dir("stage");
    let roots = FileRoots::new([root.clone()]);
    let at = root.join("a.txt");
    let shown = at.to_str().unwrap();
    // Dropped before commit: nothing appears.
    let staged = roots
        .check_write(shown, &[], false)
        .unwrap()
        .stage()
        .unwrap();
    std::io::Write::write_all(&mut staged.file().unwrap(), b"half").unwrap();
    drop(staged);
    assert_eq!(std::fs::read_dir(&root).unwrap().count(), 0);
    // A file that appears meanwhile is not replaced without overwrite.
    let staged = roots
        .check_write(shown, &[], false)
        .unwrap()
        .stage()
        .unwrap();
    std::fs::write(&at, b"theirs").unwrap();
    let e = staged.commit().unwrap_err();
    assert!(e.contains("overwrite: true"), "{e}");
    assert_eq!(std::fs::read(&at).unwrap(), b"theirs");
    #[cfg(unix)]
    {
        // A link planted at the name after the check is replaced, not written through.
        let outside = tempfile_dir("stage-out");
        std::fs::write(outside.join("t.txt"), b"keep").unwrap();
        let staged = roots
            .check_write(shown, &[], true)
            .unwrap()
            .stage()
            .unwrap();
        std::io::Write::write_all(&mut staged.file().unwrap(), b"mine").unwrap();
        std::fs::remove_file(&at).unwrap();
        std::os::unix::fs::symlink(outside.join("t.txt"), &at).unwrap();
        staged.commit().unwrap();
        assert_eq!(std::fs::read(outside.join("t.txt")).unwrap(), b"keep");
        assert_eq!(std::fs::read(&at).unwrap(), b"mine");
        std::fs::remove_dir_all(&outside).ok();
    }
    std::fs::remove_dir_all(&root).ok();
}

fn tempfile_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mm-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn files_with_other_hard_links_are_refused_to_write_and_to_read() {
    let root = tempfile_dir("hardlink");
    let outside = tempfile_dir("hardlink-out");
    let roots = FileRoots::new([root.clone()]);
    std::fs::write(outside.join("secret.txt"), b"secret").unwrap();
    let inside = root.join("alias.txt");
    std::fs::hard_link(outside.join("secret.txt"), &inside).unwrap();
    let at = inside.to_str().unwrap();
    let e = roots.check_write(at, &[], true).unwrap_err();
    assert!(e.contains("other hard links"), "{e}");
    let e = roots.open_read(at).unwrap_err();
    assert!(e.contains("other hard links"), "{e}");
    let e = roots.open_package(at, &[]).unwrap_err();
    assert!(e.contains("other hard links"), "{e}");
    assert_eq!(
        std::fs::read(outside.join("secret.txt")).unwrap(),
        b"secret"
    );
    // A link made after the check is refused when the write is committed.
    std::fs::write(root.join("one.txt"), b"old").unwrap();
    let staged = roots
        .check_write(root.join("one.txt").to_str().unwrap(), &[], true)
        .unwrap()
        .stage()
        .unwrap();
    std::fs::hard_link(root.join("one.txt"), outside.join("other.txt")).unwrap();
    let e = staged.commit().unwrap_err();
    assert!(e.contains("other hard links"), "{e}");
    assert_eq!(std::fs::read(outside.join("other.txt")).unwrap(), b"old");
    std::fs::remove_dir_all(&root).ok();
    std::fs::remove_dir_all(&outside).ok();
}

#[test]
fn fifos_are_refused_without_blocking() {
    let root = tempfile_dir("fifo");
    let roots = FileRoots::new([root.clone()]);
    let fifo = root.join("pipe.txt");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    let at = fifo.to_str().unwrap();
    assert!(
        roots
            .check_write(at, &[], true)
            .unwrap_err()
            .contains("not a regular file")
    );
    assert!(roots.open_read(at).unwrap_err().contains("not a file"));
    assert!(
        roots
            .open_package(at, &[])
            .unwrap_err()
            .contains("not a regular file")
    );
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn a_folder_swapped_for_a_link_after_the_check_keeps_the_write_in_place() {
    let root = tempfile_dir("swap");
    let outside = tempfile_dir("swap-out");
    let roots = FileRoots::new([root.clone()]);
    std::fs::create_dir(root.join("sub")).unwrap();
    let target = roots
        .check_write(root.join("sub/a.txt").to_str().unwrap(), &[], false)
        .unwrap();
    std::fs::rename(root.join("sub"), root.join("moved")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("sub")).unwrap();
    let staged = target.stage().unwrap();
    std::io::Write::write_all(&mut staged.file().unwrap(), b"mine").unwrap();
    staged.commit().unwrap();
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    assert_eq!(std::fs::read(root.join("moved/a.txt")).unwrap(), b"mine");
    std::fs::remove_dir_all(&root).ok();
    std::fs::remove_dir_all(&outside).ok();
}

#[test]
fn the_same_root_twice_is_listed_once() {
    let d = tempfile::tempdir().unwrap();
    let r = FileRoots::new([d.path().to_path_buf(), d.path().join(".")]);
    assert_eq!(r.describe().matches(", ").count(), 0, "{}", r.describe());
}
