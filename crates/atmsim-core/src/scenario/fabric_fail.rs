//! `[[fabric.fail]]` resolved (docs/fabric.md R9): each entry's link
//! directions by id, named as the user writes them ("fapF.lI", or in three
//! stages "feE.fe2_J.lK"; or a whole device, "fapF", "feE", "fe2_J", every
//! link into or out of it), its time and its rate (down, or slowed).

use super::schema_fabric::FabricSection;
use super::units::{parse_rate, parse_time};
use super::{err, ScenarioError};
use crate::fabric::{Geometry, LinkFailure};
use crate::time::Rate;

/// `[[fabric.fail]]` resolved: each entry's link directions by id, in time order.
pub(super) fn failures(f: &FabricSection, g: &Geometry, link_rate: Rate) -> Result<Vec<LinkFailure>, ScenarioError> {
    let mut out: Vec<(usize, LinkFailure)> = Vec::new();
    for (n, spec) in f.fail.iter().enumerate() {
        let key = |k: &str| format!("fabric.fail[{n}].{k}");
        let device = crate::fabric::nodes::names(g).iter().position(|name| *name == spec.link);
        if device.is_some() && spec.dir != "both" {
            return err(
                key("dir"),
                format!("'{}' is a whole device, which fails both ways: dir must be \"both\" (or name one of its links)", spec.link),
            );
        }
        let whole = device.map(|d| crate::fabric::nodes::links_of(g, d as u32));
        let Some(links) = whole.or_else(|| link_directions(g, &spec.link, &spec.dir)) else {
            return match spec.dir.as_str() {
                "both" | "up" | "down" => err(key("link"), format!("'{}' is no link: {}", spec.link, link_names(g))),
                other => err(key("dir"), format!("must be \"both\", \"up\" or \"down\", not \"{other}\"")),
            };
        };
        let at = parse_time(&spec.at).or_else(|p| err(key("at"), p))?;
        let rate = match spec.rate.trim() {
            "0" | "0bps" => None,
            r => Some(parse_rate(r).or_else(|p| err(key("rate"), p))?),
        };
        if rate.is_some_and(|r| r.bits_per_second() >= link_rate.bits_per_second()) {
            return err(key("rate"), format!("does nothing here: a slowdown must be below fabric.link_rate ({})", f.link_rate));
        }
        out.push((n, LinkFailure { links, at, rate }));
    }
    out.sort_by_key(|(_, l)| l.at);
    // A direction already down by then takes nothing more.
    for (k, (n, l)) in out.iter().enumerate() {
        if l.links.iter().any(|x| out[..k].iter().any(|(_, o)| o.rate.is_none() && o.links.contains(x))) {
            return err(
                format!("fabric.fail[{n}].link"),
                format!("does nothing here: '{}' is already down by then (an earlier [[fabric.fail]])", f.fail[*n].link),
            );
        }
    }
    Ok(out.into_iter().map(|(_, l)| l).collect())
}

/// The link ids a `[[fabric.fail]]` names, or None if `name` or `dir` is
/// none: "fapF.lI", FAP F's I-th link ("up" into the fabric, "down" to the
/// FAP); in three stages also "feE.fe2J.lK", the K-th link between FE13 E
/// and FE2 J ("up" from E as FE1 to J, "down" from J to E as FE3).
fn link_directions(g: &Geometry, name: &str, dir: &str) -> Option<Vec<u32>> {
    let index = |s: &str, below: u32| s.parse::<u32>().ok().filter(|&n| n < below);
    let (up, down) = if let Some(rest) = name.strip_prefix("fap") {
        let (fap, i) = rest.split_once(".l")?;
        let (fap, i) = (index(fap, g.faps)?, index(i, g.links)?);
        (g.up(fap, i), g.down(fap, i))
    } else {
        let s = g.spine.as_ref()?;
        let (fe, rest) = name.strip_prefix("fe")?.split_once(".fe2_")?;
        let (fe2, k) = rest.split_once(".l")?;
        let (fe, fe2, k) = (index(fe, s.fe13s)?, index(fe2, s.fe2s)?, index(k, s.fe2_links)?);
        let up = s.base + (fe * s.fe2s + fe2) * s.fe2_links + k;
        (up, up + s.links_one_way())
    };
    match dir {
        "both" => Some(vec![up, down]),
        "up" => Some(vec![up]),
        "down" => Some(vec![down]),
        _ => None,
    }
}

/// How to name a link, for an error.
fn link_names(g: &Geometry) -> String {
    let fap = format!("write \"fapF.lI\" with F below {} and I below {}", g.faps, g.links);
    let fes = g.fe_count();
    match &g.spine {
        None => format!("{fap}, or a whole device, \"fapF\" or \"feE\" with E below {fes}"),
        Some(s) => format!(
            "{fap}, or \"feE.fe2_J.lK\" with E below {fes}, J below {} and K below {}, or a whole device, \"fapF\", \"feE\" or \"fe2_J\"",
            s.fe2s, s.fe2_links
        ),
    }
}
