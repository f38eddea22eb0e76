//! `[abr]`: ABR source parameters and ERICA, checked and converted to cells/s
//! and picoseconds. ABR needs plain FIFO switch ports that drop by tail drop
//! or EOM protection (Jain et al.'s "tail drop" and "intelligent tail drop"),
//! ATM cells, ideal hosts and no credit.

use super::{err, port_named, time, ScenarioError};
use crate::atm::abr::erica::{EricaConfig, QueueControl};
use crate::atm::abr::source::AbrParams;
use crate::atm::abr::VbrConfig;
use crate::atm::abr::{cells_per_second, AbrConfig, AbrSwitch, EfciConfig};
use crate::net::Limit;
use crate::scenario::abr_schema::VbrSection;
use crate::scenario::abr_schema::{AbrSection, AbrSwitchName};
use crate::scenario::model::{App, FlowModel, PortModel};
use crate::scenario::schema::{HostKind, QueueingName, Scenario};
use crate::scenario::units::{parse_rate, short_float};
use crate::scenario::Network;

fn rate(key: &str, s: &str) -> Result<f64, ScenarioError> {
    Ok(cells_per_second(parse_rate(s).or_else(|p| err(key, p))?.bits_per_second()))
}

fn within(key: &str, v: f64, lo: f64, hi: f64, lo_open: bool) -> Result<f64, ScenarioError> {
    within_unit(key, v, lo, hi, lo_open, "")
}

/// `v` within its bounds, or an error showing the three numbers short (a
/// value of 1e300 is not printed with 300 digits) and in `unit`.
fn within_unit(key: &str, v: f64, lo: f64, hi: f64, lo_open: bool, unit: &str) -> Result<f64, ScenarioError> {
    let ok = v.is_finite() && (if lo_open { v > lo } else { v >= lo }) && v <= hi;
    if !ok {
        let open = if lo_open { "(" } else { "[" };
        return err(key, format!("{}{unit} is outside {open}{}, {}]{unit}", short(v), short(lo), short(hi)));
    }
    Ok(v)
}

/// A number in at most 7 significant digits.
fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-4..1e9).contains(&v.abs()) {
        let s = format!("{v:.7}");
        let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { &s };
        // Seven digits after the point, but significant ones for small values.
        if v != 0.0 && v.abs() < 1.0 && s.len() < 9 {
            format!("{v:.6e}")
        } else {
            s.to_string()
        }
    } else {
        format!("{v:.6e}")
    }
}

/// The ABR configuration, if the scenario has `[abr]`.
pub(super) fn abr(s: &Scenario, ports: &[PortModel], is_host: &[bool]) -> Result<Option<AbrConfig>, ScenarioError> {
    let Some(a) = &s.abr else { return Ok(None) };
    if s.network != Network::Atm {
        return err("abr", "ABR needs network = \"atm\"");
    }
    if !matches!(s.switch.policy.as_str(), "tail" | "eom-protect") {
        return err("switch.policy", "ABR runs use \"tail\" or \"eom-protect\" (RM cells are not frames)");
    }
    if s.switch.queueing != QueueingName::Fifo {
        return err("switch.queueing", "ABR runs use \"fifo\" switch ports");
    }
    if s.credit.enabled {
        return err("credit.enabled", "ABR and credit flow control are exclusive");
    }
    if s.host.model != HostKind::Ideal {
        return err("host.model", "ABR runs use \"ideal\" hosts");
    }
    let vbr = match &a.vbr {
        Some(v) => Some(vbr(v, ports, is_host)?),
        None => None,
    };
    let loss = match &a.loss {
        Some(l) => Some((port_named("abr.loss.port", ports, &l.port)?, within("abr.loss.probability", l.probability, 0.0, 1.0, false)?)),
        None => None,
    };
    let switch = switch(a, ports, is_host)?;
    Ok(Some(AbrConfig { source: params(a)?, switch, erica: erica(a)?, turnaround: a.turnaround.into(), vbr, loss }))
}

/// `abr.pcr`, where set, at most the rate of every ABR source's own link
/// (issue 38, rule 2): a source's cells leave on that link, so an ACR above
/// it is a rate no cell is sent at, and the cells it schedules faster queue
/// in the source's own adapter (jain96-2src with abr.switch = "efci" and a
/// PCR of twice the links: S1's port peaked at 1,796 cells, 33 at the
/// links' rate). Every VC of a TCP flow is an ABR source, the ACKs' too
/// (world/abr.rs). The default is not checked: it never refuses a scenario.
pub(super) fn pcr_fits_links(s: &Scenario, flows: &[FlowModel], ports: &[PortModel]) -> Result<(), ScenarioError> {
    let Some(a) = &s.abr else { return Ok(()) };
    if a.pcr == AbrSection::default().pcr {
        return Ok(());
    }
    let pcr = parse_rate(&a.pcr).or_else(|p| err("abr.pcr", p))?;
    let first_hops = flows.iter().filter(|f| f.app == App::Tcp).flat_map(|f| [f.data_route.first(), f.ack_route.first()]);
    match first_hops.flatten().map(|p| &ports[p.ix()]).min_by_key(|p| p.rate.bits_per_second() as u64) {
        Some(p) if pcr.bits_per_second() > p.rate.bits_per_second() => err(
            "abr.pcr",
            format!(
                "'{}' is above the rate of {} ({} Mb/s), the link an ABR source sends on: its cells cannot leave faster",
                a.pcr,
                p.name,
                p.rate.bits_per_second() / 1e6
            ),
        ),
        _ => Ok(()),
    }
}

/// The switches' algorithm; `[abr.efci]` is checked even when ERICA runs,
/// as `[abr.erica]`'s ERICA+ keys are when ERICA+ does not. EFCI switches
/// need `high` below every switch port's buffer: a port whose queue cannot
/// reach it would never mark.
fn switch(a: &AbrSection, ports: &[PortModel], is_host: &[bool]) -> Result<AbrSwitch, ScenarioError> {
    let e = &a.efci;
    if e.high == 0 {
        return err("abr.efci.high", "must be at least 1 cell");
    }
    if e.low > e.high {
        return err("abr.efci.low", format!("{} is above abr.efci.high {}", e.low, e.high));
    }
    if a.switch == AbrSwitchName::Efci {
        let switch_ports = ports.iter().filter(|p| !is_host[p.from.ix()]);
        if let Some((p, n)) = switch_ports
            .filter_map(|p| match p.limit {
                Limit::Units(n) if e.high >= n => Some((p, n)),
                _ => None,
            })
            .next()
        {
            return err(
                "abr.efci.high",
                format!("{} cells is not below {}'s buffer of {n} cells: that port would never mark", e.high, p.name),
            );
        }
    }
    Ok(match a.switch {
        AbrSwitchName::Erica => AbrSwitch::Erica,
        AbrSwitchName::Efci => AbrSwitch::Efci(EfciConfig { high: e.high, low: e.low, backward_ci: e.backward_ci }),
    })
}

fn vbr(v: &VbrSection, ports: &[PortModel], is_host: &[bool]) -> Result<VbrConfig, ScenarioError> {
    let port = port_named("abr.vbr.port", ports, &v.port)?;
    if is_host[ports[port.ix()].from.ix()] {
        return err("abr.vbr.port", "must leave a switch");
    }
    let line = cells_per_second(ports[port.ix()].rate.bits_per_second());
    let rate = within_unit("abr.vbr.rate", rate("abr.vbr.rate", &v.rate)?, 0.0, line, true, " cells/s")?;
    let (on, off, start) = (time("abr.vbr.on", &v.on)?, time("abr.vbr.off", &v.off)?, time("abr.vbr.start", &v.start)?);
    if on == 0 {
        return err("abr.vbr.on", "must be positive");
    }
    Ok(VbrConfig { port, rate, on, off, start })
}

fn params(a: &AbrSection) -> Result<AbrParams, ScenarioError> {
    let pcr = rate("abr.pcr", &a.pcr)?;
    let mcr = if a.mcr.trim() == "0" { 0.0 } else { rate("abr.mcr", &a.mcr)? };
    let icr = rate("abr.icr", &a.icr)?;
    if mcr > pcr {
        return err("abr.mcr", format!("'{}' is above abr.pcr '{}'", a.mcr, a.pcr));
    }
    if icr < mcr || icr > pcr {
        return err("abr.icr", format!("'{}' must lie between abr.mcr '{}' and abr.pcr '{}'", a.icr, a.mcr, a.pcr));
    }
    if !(2..=256).contains(&a.nrm) {
        return err("abr.nrm", format!("{} is outside 2..=256", a.nrm));
    }
    if a.mrm == 0 || a.mrm >= a.nrm {
        return err("abr.mrm", format!("must be in 1..{} (below nrm)", a.nrm));
    }
    if a.tbe == 0 {
        return err("abr.tbe", "must be at least 1 cell");
    }
    let crm = a.crm.unwrap_or_else(|| AbrParams::crm_of(a.tbe, a.nrm));
    if crm == 0 {
        return err("abr.crm", "must be at least 1");
    }
    let trm = time("abr.trm", &a.trm)?;
    let adtf = time("abr.adtf", &a.adtf)?;
    if trm == 0 {
        return err("abr.trm", "must be positive");
    }
    if adtf == 0 {
        return err("abr.adtf", "must be positive");
    }
    Ok(AbrParams {
        pcr,
        mcr,
        icr,
        rif: within("abr.rif", a.rif, 0.0, 1.0, true)?,
        rdf: within("abr.rdf", a.rdf, 0.0, 1.0, true)?,
        nrm: a.nrm,
        mrm: a.mrm,
        trm,
        tbe: a.tbe,
        crm,
        cdf: within("abr.cdf", a.cdf, 0.0, 1.0, false)?,
        adtf,
        tcr: within_unit("abr.tcr", a.tcr, 0.0, pcr, false, " cells/s")?,
    })
}

fn erica(a: &AbrSection) -> Result<EricaConfig, ScenarioError> {
    let e = &a.erica;
    if e.interval_cells == 0 {
        return err("abr.erica.interval_cells", "must be at least 1");
    }
    let interval_time = time("abr.erica.interval_time", &e.interval_time)?;
    if interval_time == 0 {
        return err("abr.erica.interval_time", "must be positive");
    }
    Ok(EricaConfig {
        variant: e.variant.into(),
        target_utilization: within("abr.erica.target_utilization", e.target_utilization, 0.0, 1.0, true)?,
        interval_cells: e.interval_cells,
        interval_time,
        delta: within("abr.erica.delta", e.delta, 0.0, 1.0, false)?,
        one_feedback_per_interval: e.one_feedback_per_interval,
        queue_control: QueueControl {
            target_delay: time("abr.erica.target_delay", &e.target_delay)?,
            a: at_least_one("abr.erica.a", e.a)?,
            b: at_least_one("abr.erica.b", e.b)?,
            qdlf: within("abr.erica.qdlf", e.qdlf, 0.0, 1.0, true)?,
        },
    })
}

/// ERICA+'s a and b: a curve through 1 at the target queue needs a, b >= 1
/// (and finite; at most 10^6). Past 10^6 it said "must be at least 1", and
/// echoed 1e308 in its 309 digits.
fn at_least_one(key: &str, v: f64) -> Result<f64, ScenarioError> {
    if !(1.0..=1e6).contains(&v) {
        return err(key, format!("must be 1 to 1000000 (1.15 and 1.05 published), not {}", short_float(v)));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use crate::scenario::test_support::{check, key_of};

    #[test]
    fn no_abr_section_means_no_abr() {
        assert!(check(&[]).unwrap().abr.is_none());
    }

    #[test]
    fn defaults_are_the_slide_parameters() {
        let m = check(&["abr.tbe=128"]).unwrap();
        let a = m.abr.expect("[abr] present");
        assert_eq!(a.source.crm, 4, "CRM = ceil(TBE/Nrm)");
        assert!((a.source.pcr - 366_792.45).abs() < 0.01);
        assert!((a.source.icr - 10e6 / 424.0).abs() < 1e-6);
        assert_eq!((a.source.nrm, a.source.mrm, a.source.mcr), (32, 2, 0.0));
        assert_eq!(a.erica.target_utilization, 0.9);
    }

    #[test]
    fn efci_switches_take_their_thresholds_and_erica_is_the_default() {
        use crate::atm::abr::{AbrSwitch, EfciConfig};
        assert_eq!(check(&["abr.tbe=128"]).unwrap().abr.unwrap().switch, AbrSwitch::Erica);
        let s = check(&["abr.switch=efci", "abr.efci.high=100", "abr.efci.low=100"]).unwrap().abr.unwrap().switch;
        assert_eq!(s, AbrSwitch::Efci(EfciConfig { high: 100, low: 100, backward_ci: false }));
        let s = check(&["abr.switch=efci", "abr.efci.backward_ci=true"]).unwrap().abr.unwrap().switch;
        assert_eq!(s, AbrSwitch::Efci(EfciConfig { high: 256, low: 128, backward_ci: true }));
    }

    #[test]
    fn bad_values_name_their_key() {
        assert_eq!(key_of(&["abr.nrm=1"]), "abr.nrm");
        assert_eq!(key_of(&["abr.mrm=32"]), "abr.mrm");
        assert_eq!(key_of(&["abr.icr=\"200Mbps\""]), "abr.icr");
        assert_eq!(key_of(&["abr.rif=0"]), "abr.rif");
        assert_eq!(key_of(&["abr.cdf=2"]), "abr.cdf");
        assert_eq!(key_of(&["abr.tbe=0"]), "abr.tbe");
        assert_eq!(key_of(&["abr.erica.target_utilization=1.5"]), "abr.erica.target_utilization");
        assert_eq!(key_of(&["abr.erica.variant=plus-plus"]), "abr.erica.variant");
        assert_eq!(key_of(&["abr.erica.variant=plus", "abr.erica.a=0.9"]), "abr.erica.a");
        assert_eq!(key_of(&["abr.erica.variant=plus", "abr.erica.qdlf=0"]), "abr.erica.qdlf");
        assert_eq!(key_of(&["abr.erica.target_delay=\"5 parsecs\""]), "abr.erica.target_delay");
        assert_eq!(key_of(&["abr.erica.interval_time=\"0us\""]), "abr.erica.interval_time");
        assert_eq!(key_of(&["abr.turnaround=later"]), "abr.turnaround");
        assert_eq!(key_of(&["abr.colour=1"]), "abr.colour");
        assert_eq!(key_of(&["abr.tbe=128", "switch.policy=epd"]), "switch.policy");
        assert_eq!(key_of(&["abr.tbe=128", "network=packet", "switch.buffer=\"64KB\""]), "abr");
        assert_eq!(key_of(&["abr.vbr.port=\"X->Y\""]), "abr.vbr.port");
        assert_eq!(key_of(&["abr.vbr.port=\"A->X\""]), "abr.vbr.port");
        assert_eq!(key_of(&["abr.vbr.port=\"X->B\"", "abr.vbr.rate=\"200Mbps\""]), "abr.vbr.rate");
        assert_eq!(key_of(&["abr.vbr.port=\"X->B\"", "abr.vbr.on=\"0ms\""]), "abr.vbr.on");
        assert_eq!(key_of(&["abr.vbr.color=1"]), "abr.vbr.color");
        assert_eq!(key_of(&["abr.loss.port=\"X->B\"", "abr.loss.probability=2"]), "abr.loss.probability");
        assert_eq!(key_of(&["abr.loss.port=\"nowhere\""]), "abr.loss.port");
        assert_eq!(key_of(&["abr.switch=ecn"]), "abr.switch");
        assert_eq!(key_of(&["abr.switch=efci", "abr.efci.high=0"]), "abr.efci.high");
        assert_eq!(key_of(&["abr.switch=efci", "abr.efci.low=300"]), "abr.efci.low");
        assert_eq!(key_of(&["abr.efci.low=300"]), "abr.efci.low");
        assert_eq!(key_of(&["abr.efci.high=-1"]), "abr.efci.high");
        assert_eq!(key_of(&["abr.efci.mark=1"]), "abr.efci.mark");
        // A threshold the buffer cannot reach is refused, with EFCI switches only.
        assert_eq!(key_of(&["abr.switch=efci", "switch.buffer=200cells"]), "abr.efci.high");
        assert!(check(&["abr.switch=efci", "switch.buffer=257cells"]).is_ok());
        assert!(check(&["switch.buffer=200cells"]).is_ok());
        let msg = |o: &[&str]| check(o).unwrap_err().to_string();
        assert_eq!(msg(&["abr.pcr=\"1bps\""]), "abr.icr: '10Mbps' must lie between abr.mcr '0' and abr.pcr '1bps'");
        assert_eq!(msg(&["abr.tcr=1e300"]), "abr.tcr: 1.000000e300 cells/s is outside [0, 366792.4528302] cells/s");
        assert_eq!(msg(&["abr.rdf=-1e-300"]), "abr.rdf: -1.000000e-300 is outside (0, 1]");
        let plus = "abr.erica.variant=plus";
        assert_eq!(msg(&[plus, "abr.erica.a=1e308"]), "abr.erica.a: must be 1 to 1000000 (1.15 and 1.05 published), not 1e308");
        assert_eq!(msg(&[plus, "abr.erica.b=0.5"]), "abr.erica.b: must be 1 to 1000000 (1.15 and 1.05 published), not 0.5");
        let v = check(&["abr.vbr.port=\"X->B\"", "abr.vbr.rate=\"100Mbps\""]).unwrap().abr.unwrap().vbr.unwrap();
        assert_eq!((v.on, v.start), (100 * crate::time::PS_PER_MS, 2 * crate::time::PS_PER_MS));
    }
}
