//! Runs a scenario file from the command line (for profiling without Python):
//! `cargo run --release --example run -- FILE [key=value ...]`.
fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: run FILE [key=value ...]");
    let overrides: Vec<String> = args.collect();
    let text = std::fs::read_to_string(&path).expect("readable scenario");
    match atmsim_core::run_text(&text, &overrides, None, false) {
        Ok((s, _)) => println!("{}", s.to_json()),
        Err(e) => {
            eprintln!("atmsim: error: {e}");
            std::process::exit(2);
        }
    }
}
