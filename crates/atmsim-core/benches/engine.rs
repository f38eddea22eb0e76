//! Criterion benchmarks: the event engine alone, and a short slice of the
//! aron97 topology-1 ATM run (events per second, events per cell-hop).
use atmsim_core::engine::{Event, PortEvent, Scheduler};
use atmsim_core::net::PortId;
use atmsim_core::{scenario, World};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn scheduler(c: &mut Criterion) {
    let mut g = c.benchmark_group("scheduler");
    g.throughput(Throughput::Elements(1_000_000));
    g.bench_function("1M events, 32 pending", |b| {
        b.iter(|| {
            let mut s = Scheduler::default();
            for i in 0..32u64 {
                s.schedule(i, Event::Port(PortEvent::PipeHead(PortId(i as u32))));
            }
            let mut n = 0u64;
            // As the world's loop takes events: stored, a pipe head
            // recognised without decoding.
            while let Some((t, ev)) = s.next_until(u64::MAX) {
                n += 1;
                if n >= 1_000_000 {
                    break;
                }
                let p = ev.pipe_head().expect("only pipe heads here");
                s.schedule(t + 3_000_000, Event::Port(PortEvent::PipeHead(p)));
            }
            n
        })
    });
    g.finish();
}

fn aron97_slice(c: &mut Criterion) {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/atmsim/scenarios/aron97-topo1-atm.toml")).unwrap();
    let s = scenario::parse(&text, &["duration=1s".to_string()]).unwrap();
    let model = scenario::validate(&s, None).unwrap();
    let mut g = c.benchmark_group("aron97-topo1-atm");
    g.sample_size(10);
    g.bench_function("1 s simulated", |b| {
        b.iter(|| {
            let mut sim = World::new(model.clone(), false);
            sim.run();
            sim.events()
        })
    });
    g.finish();
}

criterion_group!(benches, scheduler, aron97_slice);
criterion_main!(benches);
