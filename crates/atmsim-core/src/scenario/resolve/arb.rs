//! `[arb]`: one [`ArbConfig`] per ARB flow, its "auto" values from the
//! flow's path (docs/arb.md, "Parameters the paper leaves open").

use super::{err, positive_time, ScenarioError};
use crate::net::{Limit, PortId};
use crate::scenario::model::PortModel;
use crate::scenario::schema::{FlowKind, Scenario};
use crate::scenario::schema_packet::ArbSection;
use crate::scenario::units::parse_rate;
use crate::time::{secs, Time};
use crate::transport::arb::{Accumulation, ArbConfig, CompareWith};

fn rate_or(key: &str, text: &str, auto: f64) -> Result<f64, ScenarioError> {
    if text == "auto" {
        return Ok(auto);
    }
    Ok(parse_rate(text).or_else(|p| err(key, p))?.bits_per_second())
}

/// `arb.accumulation` and `arb.k_acc` where no flow is ARB: the accumulation
/// rule runs only in ARB receivers, so either set off its default does
/// nothing and is refused (issue 38, rule 1). The file's other `[arb]` keys
/// are not: the arb-* scenarios write them for their ARB connections and run
/// TCP-SS by turning the flows to TCP (`flow.fN.kind=tcp`), section kept;
/// any of them set by `--set` off what the scenario has is
/// (`scenario::arb_set_without_arb_flows`).
pub(super) fn accumulation_without_arb_flows(s: &Scenario) -> Result<(), ScenarioError> {
    if s.flows.iter().any(|f| matches!(f.kind, FlowKind::Arb)) {
        return Ok(());
    }
    let default = ArbSection::default();
    let why = "does nothing here: no flow of this scenario is ARB (flow.NAME.kind = \"arb\")";
    if s.arb.accumulation != default.accumulation {
        return err("arb.accumulation", why);
    }
    if s.arb.k_acc != default.k_acc {
        return err("arb.k_acc", why);
    }
    Ok(())
}

/// The configuration of an ARB flow whose data and replies take these routes.
pub(super) fn arb_config(
    a: &ArbSection,
    ports: &[PortModel],
    data: &[PortId],
    reply: &[PortId],
    payload: u32,
    header_bytes: u32,
) -> Result<ArbConfig, ScenarioError> {
    let packet_bits = 8.0 * (payload + header_bytes) as f64;
    let interval = positive_time("arb.interval", &a.interval)?;
    let m = secs(interval);
    // "A rate that allows two packets to queue in each node along the path"
    // (§3.2): two packets per bounded queue, spread over one interval.
    let hops = data.iter().filter(|p| ports[p.ix()].limit != Limit::Unlimited).count().max(1);
    let delta_r = rate_or("arb.delta_r", &a.delta_r, 2.0 * packet_bits * hops as f64 / m)?;
    let rmax = rate_or("arb.rmax", &a.rmax, ports[data[0].ix()].rate.bits_per_second())?;
    let r_init = rate_or("arb.r_init", &a.r_init, packet_bits)?;
    let r_min = rate_or("arb.r_min", &a.r_min, packet_bits / 10.0)?;
    let rinc = parse_rate(&a.rinc).or_else(|p| err("arb.rinc", p))?.bits_per_second();
    let timeout: Time = if a.timeout == "auto" {
        let rtt: Time = data.iter().chain(reply).map(|p| ports[p.ix()].delay).sum();
        2 * interval + 2 * rtt
    } else {
        positive_time("arb.timeout", &a.timeout)?
    };
    if !(0.0..=1.0).contains(&a.theta) || a.theta == 0.0 {
        return err("arb.theta", "must be in (0, 1]");
    }
    if a.k_acc.is_nan() || a.k_acc <= 0.0 {
        return err("arb.k_acc", "must be positive");
    }
    if r_min > r_init || r_init > rmax {
        return err("arb.r_init", format!("need r_min <= r_init <= rmax ({r_min} <= {r_init} <= {rmax} b/s)"));
    }
    // The path's slowest line: the bottleneck whose queue the "queue"
    // reading counts (a modelling choice, `transport/arb/accumulation.rs`).
    let bottleneck = data.iter().map(|p| ports[p.ix()].rate.bits_per_second()).fold(f64::INFINITY, f64::min);
    let Some(accumulation) = Accumulation::named(&a.accumulation, bottleneck) else {
        let names = Accumulation::NAMES.map(|n| format!("\"{n}\"")).join(" or ");
        return err("arb.accumulation", format!("'{}' is not {names}", a.accumulation));
    };
    let compare_with = match a.compare_with.as_str() {
        "ra" => CompareWith::Ra,
        "rs" => CompareWith::Rs,
        other => return err("arb.compare_with", format!("'{other}' is not \"ra\" or \"rs\"")),
    };
    Ok(ArbConfig {
        payload,
        header_bytes,
        rinc,
        theta: a.theta,
        delta_r,
        interval,
        timeout,
        rmax,
        r_init,
        r_min,
        adaptive_rinc: a.adaptive_rinc,
        compare_with,
        k_acc: a.k_acc,
        accumulation,
    })
}

#[cfg(test)]
mod tests {
    use crate::scenario::test_support::{check, key_of};
    use crate::scenario::App;

    const ARB: [&str; 3] = ["network=packet", "flow.f1.kind=arb", "switch.buffer=20packets"];

    #[test]
    fn auto_values_come_from_the_path() {
        let m = check(&ARB).unwrap();
        let App::Arb(c) = m.flows[0].app else { panic!("an ARB flow") };
        let bits = 8.0 * (9128.0 + 40.0);
        // One bounded queue (X->B) on the path, M = 2 s.
        assert_eq!(c.delta_r, 2.0 * bits / 2.0);
        assert_eq!(c.r_init, bits);
        assert_eq!(c.rmax, 141.33e6);
        // 2M + two propagation round trips (1 us + 1 ms each way).
        assert_eq!(c.timeout, 4 * 1_000_000_000_000 + 2 * 2 * (1_000_000 + 1_000_000_000));
    }

    #[test]
    fn the_queue_reading_counts_packet_times_of_the_paths_slowest_line() {
        use crate::transport::arb::Accumulation;
        let reading = |extra: &[&str]| {
            let args: Vec<&str> = ARB.iter().chain(extra).copied().collect();
            let m = check(&args).unwrap();
            let App::Arb(c) = m.flows[0].app else { panic!("an ARB flow") };
            c.accumulation
        };
        // Both lines of f1's path run at 141.33 Mb/s; a slower one is found wherever it is.
        assert_eq!(reading(&["arb.accumulation=\"queue\""]), Accumulation::Queue { bottleneck_bps: 141.33e6 });
        assert_eq!(reading(&["arb.accumulation=\"queue\"", "link.X-B.rate=\"800kbps\""]), Accumulation::Queue { bottleneck_bps: 800e3 });
        assert_eq!(reading(&["arb.accumulation=\"own-rate\""]), Accumulation::OwnRate);
    }

    #[test]
    fn accumulation_keys_without_arb_flows_are_refused_and_defaults_restated_are_not() {
        fn with(extra: &str) -> [&str; 3] {
            ["network=packet", "switch.buffer=20packets", extra]
        }
        assert_eq!(key_of(&with("arb.accumulation=\"own-rate\"")), "arb.accumulation");
        assert_eq!(key_of(&with("arb.k_acc=0.6")), "arb.k_acc");
        let default = crate::scenario::schema_packet::ArbSection::default();
        assert!(check(&with(&format!("arb.accumulation=\"{}\"", default.accumulation))).is_ok());
        assert!(check(&with("arb.k_acc=3")).is_ok());
        // With an ARB flow both are taken; without one any other key set off what the scenario has is refused
        // too (`scenario::arb_set_without_arb_flows`; a file's own [arb] is taken).
        assert!(check(&[ARB[0], ARB[1], ARB[2], "arb.accumulation=\"queue\"", "arb.k_acc=0.6"]).is_ok());
        assert_eq!(key_of(&with("arb.rinc=\"2500bps\"")), "arb.rinc");
    }

    #[test]
    fn bad_arb_keys_are_named() {
        let with = |extra: &str| [ARB[0], ARB[1], ARB[2], extra].map(String::from);
        assert_eq!(key_of(&with("arb.theta=1.5").each_ref().map(|s| s.as_str())), "arb.theta");
        assert_eq!(key_of(&with("arb.compare_with=\"rr\"").each_ref().map(|s| s.as_str())), "arb.compare_with");
        assert_eq!(key_of(&with("arb.accumulation=\"bottleneck\"").each_ref().map(|s| s.as_str())), "arb.accumulation");
        assert_eq!(key_of(&with("arb.rinc=\"fast\"").each_ref().map(|s| s.as_str())), "arb.rinc");
        assert_eq!(key_of(&with("arb.r_init=\"1bps\"").each_ref().map(|s| s.as_str())), "arb.r_init");
        assert_eq!(key_of(&["flow.f1.kind=arb"]), "flow[f1].kind");
    }
}
