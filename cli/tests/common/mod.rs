//! What the binary's tests share: running `placement` in the workspace root and reading what
//! it printed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// The workspace root: relative paths in the tests (examples/, tests/fixtures/) start here.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("cli/ has a parent").to_path_buf()
}

/// One run of the binary.
pub struct Run {
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

#[allow(dead_code)] // each test binary uses its own share of these
impl Run {
    pub fn json(&self) -> Value {
        assert_eq!(self.status, Some(0), "expected success; stderr:\n{}", self.stderr);
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }

    /// Exit status 0; what it printed.
    pub fn ok(&self) -> &str {
        assert_eq!(self.status, Some(0), "expected success; stderr:\n{}", self.stderr);
        &self.stdout
    }

    /// Exit status 1 and exactly this one error line.
    pub fn fails_with(&self, error: &str) {
        assert_eq!(self.status, Some(1), "expected failure; stdout:\n{}", self.stdout);
        assert_eq!(self.stderr, format!("error: {error}\n"));
    }

    pub fn no_panic(&self) {
        assert!(!self.stderr.contains("panicked"), "the binary panicked:\n{}", self.stderr);
        assert!(!self.stderr.contains("RUST_BACKTRACE"), "the binary panicked:\n{}", self.stderr);
    }
}

/// Runs `placement ARGS` in the workspace root, feeding `stdin` when given.
pub fn placement_bytes(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_placement"));
    cmd.args(args).current_dir(root()).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    let mut child = cmd.spawn().expect("spawn placement");
    if let Some(input) = stdin {
        let mut pipe = child.stdin.take().expect("stdin pipe");
        // The binary reads all of stdin before it answers; a broken pipe means it exited early,
        // which the exit status reports.
        if let Err(e) = pipe.write_all(input) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
        }
    }
    let Output { status, stdout, stderr } = child.wait_with_output().expect("wait for placement");
    let run = Run {
        status: status.code(),
        stdout: String::from_utf8(stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(stderr).expect("stderr is UTF-8"),
    };
    run.no_panic();
    run
}
