//! The `shadowjudge` binary: all the work is in the library's `cli` module.
fn main() -> std::process::ExitCode {
    // Like other command-line tools, end quietly when the reader of our output goes away
    // (`shadowjudge status g | head -1`) instead of failing on a broken pipe. Not for the
    // `mail` commands that send mail: they write to other programs (sendmail), and one
    // that exits early must be an error for that mail, not the end of the whole run.
    // `mail password` without `--mail` only prints.
    #[cfg(unix)]
    if !sends_mail(&std::env::args_os().skip(1).collect::<Vec<_>>()) {
        // SAFETY: restoring the default action of SIGPIPE before any thread starts.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    shadowjudge::cli::main()
}

/// Whether the command line runs a `mail` command that may send mail.
#[cfg(unix)]
fn sends_mail(args: &[std::ffi::OsString]) -> bool {
    let is_mail = args.first().is_some_and(|command| command == "mail");
    let prints_a_password = args.iter().any(|a| a == "password") && !args.iter().any(|a| a == "--mail");
    is_mail && !prints_a_password
}
