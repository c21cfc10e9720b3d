//! The `shadowjudge` binary: all the work is in the library's `cli` module.
fn main() -> std::process::ExitCode {
    // Like other command-line tools, end quietly when the reader of our output goes away
    // (`shadowjudge status g | head -1`) instead of failing on a broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default action of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    shadowjudge::cli::main()
}
