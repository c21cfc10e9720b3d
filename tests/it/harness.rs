//! One way to run the built binary in tests: arguments, standard input, extra environment,
//! the clock fixed with `SHADOWJUDGE_NOW`; the exit code and both outputs back, and a
//! check that it did not panic.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// What one run of the binary did.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The run, after checking it succeeded.
    pub fn ok(self) -> Run {
        assert_eq!(self.code, 0, "exit {}\nstdout:\n{}\nstderr:\n{}", self.code, self.stdout, self.stderr);
        self
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", self.stdout))
    }
}

/// Run `shadowjudge ARGS` with the clock fixed at `now` (`None`: the real clock) in `cwd`
/// (or the current directory), with `stdin` and extra environment.
pub fn shadowjudge_at(now: &str, cwd: Option<&Path>, args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shadowjudge"));
    if !now.is_empty() {
        cmd.env("SHADOWJUDGE_NOW", now);
    }
    cmd.args(args).env_remove("RUST_BACKTRACE").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("the binary runs");
    let mut input = child.stdin.take().expect("piped");
    let bytes = stdin.unwrap_or(b"").to_vec();
    // Written from another thread, so a command that answers as it reads cannot fill its
    // output pipe and wait for us while we wait for it. A command that does not read its
    // input may close it first: not an error here.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().expect("the binary finishes");
    writer.join().expect("the writer thread");
    let run = Run {
        code: out.status.code().expect("exited, not killed"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(!run.stderr.contains("panicked"), "shadowjudge {args:?} panicked:\n{}", run.stderr);
    run
}
