//! `[boston]`: TCP Boston (Bestavros & Kim 1997) and the measurements of
//! its evaluation. Present in a scenario, it adds a `boston` block to the
//! summary (frames and cells per transmission kind, partial ACKs,
//! time-average window) for every TCP flow; `aida = true` makes those flows
//! TCP Boston, `aida = false` leaves them plain Reno, measured the same way.

use super::model::Network;
use super::schema::{HostKind, Scenario};
use super::{err, ScenarioError};
use crate::coding::MatrixKind;
use crate::net::MAX_CELL_INDEX;
use crate::transport::boston::BostonConfig;

/// Checks `[boston]` against the rest of the scenario; `m` is the cells of
/// a full-size segment.
pub(super) fn resolve(s: &Scenario, m: u32) -> Result<Option<BostonConfig>, ScenarioError> {
    let Some(b) = &s.boston else { return Ok(None) };
    if s.network != Network::Atm {
        return err("boston", "TCP Boston's measurements need network = \"atm\"");
    }
    if s.host.model != HostKind::Ideal {
        return err("host.model", "must be \"ideal\" with [boston]");
    }
    if b.aida {
        if s.tcp.variant != "lite" {
            return err("tcp.variant", "TCP Boston runs on Reno: use \"lite\"");
        }
        if s.tcp.delayed_ack {
            return err("tcp.delayed_ack", "TCP Boston acknowledges every frame: set it to false");
        }
    }
    if b.payload && !b.aida {
        return err("boston.payload", "needs boston.aida = true");
    }
    // Counting pieces needs only distinct indices; rebuilding real bytes
    // needs the GF(2^8) matrix, so payload mode keeps N within it.
    let limit = match (b.payload, b.matrix) {
        (false, _) => u16::MAX as u32,
        (true, MatrixKind::Vandermonde) => 256,
        (true, MatrixKind::Cauchy) => 256 - m,
    };
    if (b.pieces as u32) < m || b.pieces as u32 > limit {
        let why = if b.payload { " (with boston.payload = true: GF(2^8))" } else { "" };
        return err("boston.pieces", format!("must be between the {m} cells of a full segment and {limit}{why}"));
    }
    // A first transmission carries min(m + redundancy, N) pieces, one a
    // cell, and a cell's index in its frame has 12 bits (`net::Unit`).
    let most = MAX_CELL_INDEX as u32 + 1;
    if (m + b.redundancy as u32).min(b.pieces as u32) > most {
        return err(
            "boston.redundancy",
            format!("{} pieces beyond the {m} cells of a full segment make frames of more than {most} cells", b.redundancy),
        );
    }
    Ok(Some(b.clone()))
}

#[cfg(test)]
mod tests {
    use crate::scenario::test_support::{check, key_of};

    const BOSTON: [&str; 4] = ["tcp.mss=9140B", "tcp.delayed_ack=false", "boston.aida=true", "atm.encapsulation=aal5-vcmux"];

    #[test]
    fn absent_section_means_no_boston() {
        assert_eq!(check(&[]).unwrap().boston, None);
    }

    #[test]
    fn defaults_are_the_papers_runs() {
        let b = check(&BOSTON).unwrap().boston.unwrap();
        assert!(b.aida && !b.payload);
        assert_eq!((b.redundancy, b.pieces), (0, 256));
    }

    #[test]
    fn bad_combinations_name_their_key() {
        let with = |extra: &str| {
            let mut o = BOSTON.to_vec();
            o.push(extra);
            key_of(&o)
        };
        assert_eq!(key_of(&["network=packet", "switch.buffer=64000B", "tcp.delayed_ack=false", "boston.aida=true"]), "boston");
        assert_eq!(with("tcp.variant=vegas"), "tcp.variant");
        assert_eq!(with("tcp.delayed_ack=true"), "tcp.delayed_ack");
        assert_eq!(with("boston.pieces=100"), "boston.pieces");
        assert!(check(&[BOSTON.as_slice(), &["boston.pieces=4096"]].concat()).is_ok());
        assert_eq!(with("boston.pieces=70000"), "boston.pieces");
        // A frame's cells are numbered in 12 bits: at most 4096 of them.
        assert!(check(&[BOSTON.as_slice(), &["boston.pieces=4096", "boston.redundancy=20000"]].concat()).is_ok());
        assert!(check(&[BOSTON.as_slice(), &["boston.pieces=65535", "boston.redundancy=3800"]].concat()).is_ok());
        assert_eq!(key_of(&[BOSTON.as_slice(), &["boston.pieces=65535", "boston.redundancy=4096"]].concat()), "boston.redundancy");
        assert_eq!(key_of(&[BOSTON.as_slice(), &["boston.pieces=65535", "boston.redundancy=20000"]].concat()), "boston.redundancy");
        assert_eq!(key_of(&[BOSTON.as_slice(), &["boston.pieces=300", "boston.payload=true"]].concat()), "boston.pieces");
        assert_eq!(key_of(&[BOSTON.as_slice(), &["boston.matrix=cauchy", "boston.payload=true"]].concat()), "boston.pieces");
        assert_eq!(with("boston.matrix=hilbert"), "boston.matrix");
        assert_eq!(with("boston.colour=1"), "boston.colour");
        assert_eq!(key_of(&["boston.aida=false", "boston.payload=true"]), "boston.payload");
        // Reno measured the Boston way may keep delayed ACKs.
        assert!(check(&["boston.aida=false"]).unwrap().boston.is_some());
    }
}
