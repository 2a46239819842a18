//! `spur-sim`: see README.md and `spur-sim --help`.

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match spur_sim::cli::run(&args) {
        Ok(out) => {
            // (a closed pipe is no reason to panic)
            let _ = std::io::stdout().write_all(out.as_bytes());
        }
        Err(e) => {
            eprintln!("spur-sim: {e}");
            std::process::exit(1);
        }
    }
}
