//! Runs a scenario file from the command line (for profiling without Python):
//! `cargo run --release --example run -- [--pcap DIR] FILE [key=value ...]`.
fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let pcap = (args.peek().map(String::as_str) == Some("--pcap")).then(|| {
        args.next();
        args.next().expect("--pcap DIR")
    });
    let path = args.next().expect("usage: run [--pcap DIR] FILE [key=value ...]");
    let overrides: Vec<String> = args.collect();
    let text = std::fs::read_to_string(&path).expect("readable scenario");
    let result = match &pcap {
        None => atmsim_core::run_text(&text, &overrides, None, false).map(|(s, _)| (s, Vec::new())),
        Some(_) => atmsim_core::run_text_capture(&text, &overrides, None, false).map(|(s, _, f)| (s, f)),
    };
    match result {
        Ok((s, files)) => {
            for f in files {
                let dir = std::path::Path::new(pcap.as_deref().unwrap());
                std::fs::create_dir_all(dir).expect("a writable directory");
                std::fs::write(dir.join(&f.name), &f.bytes).expect("a writable directory");
            }
            println!("{}", s.to_json())
        }
        Err(e) => {
            eprintln!("atmsim: error: {e}");
            std::process::exit(2);
        }
    }
}
