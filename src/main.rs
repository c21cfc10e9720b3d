//! The `shadowjudge` binary: all the work is in the library's `cli` module.
fn main() -> std::process::ExitCode {
    shadowjudge::cli::main()
}
