//! The `shadowjudge` binary: all the work is in the library's `cli` module.
fn main() -> std::process::ExitCode {
    // Like other command-line tools, end quietly when the reader of our output goes away
    // (`shadowjudge status g | head -1`) instead of failing on a broken pipe. Not for the
    // `mail` commands: they write to other programs (sendmail), and one that exits early
    // must be an error for that mail, not the end of the whole run.
    #[cfg(unix)]
    if std::env::args_os().nth(1).is_none_or(|command| command != "mail") {
        // SAFETY: restoring the default action of SIGPIPE before any thread starts.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    shadowjudge::cli::main()
}
