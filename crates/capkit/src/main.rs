//! The `capkit` binary: the command line of [`capkit::main_with`].
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    capkit::main_with(std::env::args_os())
}
