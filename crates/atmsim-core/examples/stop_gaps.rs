//! How long a validation goes without asking whether to go on
//! (`scenario/stop.rs`), and how long it takes to end once told to stop:
//! `cargo run --release --example stop_gaps -- [--stop-at MS] FILE [key=value ...]`
//! prints the validation's time, the questions asked and the longest gaps
//! between them; with `--stop-at`, the first question past MS milliseconds
//! says stop, and it prints the time from that answer to the return and the
//! time to free what was handed back.
use atmsim_core::Stoppable;
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let stop_at = (args.peek().map(String::as_str) == Some("--stop-at")).then(|| {
        args.next();
        Duration::from_millis(args.next().expect("--stop-at MS").parse().expect("milliseconds"))
    });
    let path = args.next().expect("usage: stop_gaps [--stop-at MS] FILE [key=value ...]");
    let overrides: Vec<String> = args.collect();
    let text = std::fs::read_to_string(&path).expect("readable scenario");
    let start = Instant::now();
    let mut asked = vec![start];
    let result = {
        let mut go_on = || {
            let now = Instant::now();
            asked.push(now);
            stop_at.is_none_or(|at| now - start < at)
        };
        atmsim_core::model_stoppable(&text, &overrides, None, false, &mut go_on)
    };
    let end = Instant::now();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let said = match &result {
        Ok(Stoppable::Done(_)) => "valid".to_string(),
        Ok(Stoppable::Stopped(_)) => format!("stopped {:.1} ms after the answer", ms(end - *asked.last().unwrap())),
        Err(e) => format!("{e}"),
    };
    asked.push(end);
    let mut gaps: Vec<(Duration, usize)> = asked.windows(2).enumerate().map(|(i, w)| (w[1] - w[0], i)).collect();
    gaps.sort_by_key(|g| std::cmp::Reverse(g.0));
    println!("validation {:.1} ms ({said}), {} questions; longest gaps (ms, after question #):", ms(end - start), asked.len() - 2);
    for (gap, i) in gaps.iter().take(6) {
        println!("  {:8.1} after #{i} (at {:.1} ms)", ms(*gap), ms(asked[*i] - start));
    }
    let t = Instant::now();
    drop(result);
    println!("freeing the model or what was handed back: {:.1} ms", ms(t.elapsed()));
}
