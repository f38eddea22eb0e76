//! htsim's connection-matrix text format (`.cm`, htsim
//! `ConnectionMatrix::load` at 841d9e7; docs/fabrics.md, "Traffic
//! matrices"), read into a [`Matrix`]: a header (`Nodes N`, `Connections C`,
//! optional `Triggers T`, `Failures F`), one line per flow
//! (`src->dst [id I] start T size B` with `trigger`, `send_done_trigger`,
//! `recv_done_trigger`), `trigger id I oneshot|multishot|barrier [count C]`
//! lines, `#` comments and blank lines.
//!
//! Stricter than htsim where htsim would crash or read garbage (a flow
//! without a size, a barrier without a count, a header word it skips): every
//! problem is one [`LineError`] naming the line. `failure` lines are
//! refused: the core cannot fail a fat tree's link, and htsim at 841d9e7
//! aborts on them too (`FatTreeTopology::add_failed_link` asserts unless
//! `link_id` matches the switch's position in its pod, and the routes then
//! push the removed queue: docs/fabrics.md, "Traffic matrices").

use crate::time::Time;

/// The largest flow a matrix may give (as a `[[flow]]`'s `bytes`).
pub const MAX_SIZE: u64 = 1 << 62;
/// Most connections a matrix may hold: each is a flow with its own routes.
pub const MAX_CONNECTIONS: usize = 1 << 20;

/// One flow of a matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conn {
    /// Its line in the file (1-based; 0 for a generated matrix).
    pub line: usize,
    pub src: u32,
    pub dst: u32,
    pub id: Option<u32>,
    pub start: Start,
    pub size: u64,
    /// The trigger activated when the flow's sender is done (its last byte acknowledged).
    pub send_done: Option<u32>,
    /// The trigger activated when its receiver has every byte in order.
    pub recv_done: Option<u32>,
}

/// When a flow starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// At a time (picoseconds, as htsim's parser reads `start`).
    At(Time),
    /// When the trigger of this id fires.
    Trigger(u32),
}

/// How a trigger fires (htsim `SingleShotTrigger`, `MultiShotTrigger`, `BarrierTrigger`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriggerKind {
    /// At its first activation it starts every flow waiting on it.
    Oneshot,
    /// Each activation starts the next flow waiting on it, in file order.
    Multishot,
    /// After this many activations it starts every flow waiting on it.
    Barrier(u32),
}

/// A `trigger` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TriggerDef {
    pub line: usize,
    pub id: u32,
    pub kind: TriggerKind,
}

/// A parsed matrix: `Nodes`, its flows in file order, its triggers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Matrix {
    pub nodes: u32,
    /// The line of `Nodes` (0: generated).
    pub nodes_line: usize,
    pub conns: Vec<Conn>,
    pub triggers: Vec<TriggerDef>,
}

/// A problem at a line of the file (0: the file as a whole).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    pub line: usize,
    pub problem: String,
}

fn at<T>(line: usize, problem: impl Into<String>) -> Result<T, LineError> {
    Err(LineError { line, problem: problem.into() })
}

/// The header counts as written, with their lines.
#[derive(Default)]
struct Header {
    nodes: Option<(u32, usize)>,
    connections: Option<(u64, usize)>,
    triggers: Option<(u64, usize)>,
    failures: Option<(u64, usize)>,
}

/// Reads a matrix's text.
pub fn parse(text: &str) -> Result<Matrix, LineError> {
    let mut header = Header::default();
    let mut m = Matrix::default();
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        let tokens: Vec<&str> = raw.split_whitespace().collect();
        let Some(&first) = tokens.first() else { continue };
        if first.starts_with('#') {
            continue;
        }
        let slot = match first {
            "Nodes" => {
                let n = header_count(&tokens, line)?;
                if header.nodes.is_some() {
                    return at(line, "Nodes is given twice");
                }
                if n == 0 || n > u32::MAX as u64 {
                    return at(line, format!("Nodes must be 1 to {}, not {n}", u32::MAX));
                }
                header.nodes = Some((n as u32, line));
                continue;
            }
            "Connections" => &mut header.connections,
            "Triggers" => &mut header.triggers,
            "Failures" => &mut header.failures,
            "trigger" => {
                m.triggers.push(trigger_line(&tokens[1..], line)?);
                continue;
            }
            "failure" => {
                return at(line, "a link failure: atmsim cannot fail a fat tree's link (htsim 841d9e7 aborts on these lines too), so matrices with failure lines are refused (remove the line and the Failures count)")
            }
            t if t.contains("->") => {
                if m.conns.len() == MAX_CONNECTIONS {
                    return at(line, format!("more than {MAX_CONNECTIONS} connections"));
                }
                m.conns.push(conn_line(&tokens, line)?);
                continue;
            }
            t => return at(line, format!("'{t}' is not a line of a connection matrix (Nodes, Connections, Triggers, Failures, src->dst, trigger)")),
        };
        let n = header_count(&tokens, line)?;
        if slot.is_some() {
            return at(line, format!("{first} is given twice"));
        }
        *slot = Some((n, line));
    }
    let Some((nodes, nodes_line)) = header.nodes else { return at(0, "no 'Nodes N' line") };
    (m.nodes, m.nodes_line) = (nodes, nodes_line);
    let Some((conns, conns_line)) = header.connections else { return at(0, "no 'Connections C' line") };
    if conns != m.conns.len() as u64 {
        return at(conns_line, format!("Connections says {conns}, but the file has {} connection lines", m.conns.len()));
    }
    let (triggers, triggers_line) = header.triggers.unwrap_or((0, 0));
    if triggers != m.triggers.len() as u64 {
        return at(triggers_line, format!("Triggers says {triggers}, but the file has {} trigger lines", m.triggers.len()));
    }
    if let Some((f, line)) = header.failures.filter(|&(f, _)| f > 0) {
        return at(line, format!("Failures {f}: atmsim cannot fail a fat tree's link, so matrices with failures are refused"));
    }
    if m.conns.is_empty() {
        return at(conns_line, "a matrix needs at least one connection");
    }
    Ok(m)
}

fn header_count(tokens: &[&str], line: usize) -> Result<u64, LineError> {
    match tokens {
        [_, n] => number(n, line, tokens[0]),
        _ => at(line, format!("'{}' takes one number ('{} N')", tokens[0], tokens[0])),
    }
}

/// A whole number; `what` names it in the error.
fn number(text: &str, line: usize, what: &str) -> Result<u64, LineError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return at(line, format!("{what} must be a whole number, not '{text}'"));
    }
    text.parse::<u64>().or_else(|_| at(line, format!("{what} {text} is too large")))
}

fn small(text: &str, line: usize, what: &str) -> Result<u32, LineError> {
    let n = number(text, line, what)?;
    u32::try_from(n).or_else(|_| at(line, format!("{what} {text} is too large (at most {})", u32::MAX)))
}

/// An id (a flow's or a trigger's): 1 or more, as htsim requires.
fn id(text: &str, line: usize, what: &str) -> Result<u32, LineError> {
    match small(text, line, what)? {
        0 => at(line, format!("{what} 0 is not allowed (ids start at 1)")),
        n => Ok(n),
    }
}

/// `start T`: picoseconds (htsim's parser; its generators write µs × 10^6),
/// whole, a decimal point allowed ("0.000000", as htsim's `save` writes).
fn start_ps(text: &str, line: usize) -> Result<Time, LineError> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if !frac.bytes().all(|b| b == b'0') {
        return at(line, format!("start '{text}' is not a whole number of picoseconds (start is in picoseconds, as htsim reads it)"));
    }
    let ps = number(whole, line, "start")?;
    if ps > crate::scenario::units::MAX_TIME {
        return at(line, format!("start {text} ps is too late (at most {} ps)", crate::scenario::units::MAX_TIME));
    }
    Ok(ps)
}

fn conn_line(tokens: &[&str], line: usize) -> Result<Conn, LineError> {
    let (src, dst) = tokens[0].split_once("->").expect("a connection line");
    let (src, dst) = (small(src, line, "the source node")?, small(dst, line, "the destination node")?);
    if src == dst {
        return at(line, format!("node {src} sends to itself"));
    }
    let (mut id_, mut start, mut size, mut send_done, mut recv_done) = (None, None, None, None, None);
    let mut rest = tokens[1..].iter();
    while let Some(&key) = rest.next() {
        let Some(&value) = rest.next() else {
            return at(line, format!("'{key}' needs a value"));
        };
        let (slot, parsed) = match key {
            "id" => (&mut id_, Some(id(value, line, "id")?)),
            "send_done_trigger" => (&mut send_done, Some(id(value, line, "send_done_trigger")?)),
            "recv_done_trigger" => (&mut recv_done, Some(id(value, line, "recv_done_trigger")?)),
            "start" | "trigger" => {
                if start.is_some() {
                    return at(line, "give start or trigger, once (a flow starts at a time or when a trigger fires)");
                }
                start = Some(if key == "start" { Start::At(start_ps(value, line)?) } else { Start::Trigger(id(value, line, "trigger")?) });
                continue;
            }
            "size" => {
                let b = number(value, line, "size")?;
                if b == 0 {
                    return at(line, "size 0: a flow carries at least one byte");
                }
                if b > MAX_SIZE {
                    return at(line, format!("size {value} is too large (at most 2^62 bytes)"));
                }
                if size.replace(b).is_some() {
                    return at(line, "size is given twice");
                }
                continue;
            }
            "prio" | "addon" => return at(line, format!("'{key}' is not modelled (atmsim's flows have no priorities)")),
            k => return at(line, format!("unknown key '{k}' (id, start, trigger, size, send_done_trigger, recv_done_trigger)")),
        };
        if slot.replace(parsed.expect("parsed")).is_some() {
            return at(line, format!("{key} is given twice"));
        }
    }
    let Some(start) = start else { return at(line, "no start: give 'start T' (picoseconds) or 'trigger I'") };
    let Some(size) = size else { return at(line, "no size: give 'size B' (bytes)") };
    if matches!(start, Start::Trigger(_)) && id_.is_none() {
        return at(line, "a flow started by a trigger needs an id (as htsim requires)");
    }
    Ok(Conn { line, src, dst, id: id_, start, size, send_done, recv_done })
}

fn trigger_line(tokens: &[&str], line: usize) -> Result<TriggerDef, LineError> {
    let (mut id_, mut kind, mut count) = (None, None, None);
    let mut rest = tokens.iter();
    while let Some(&key) = rest.next() {
        match key {
            "oneshot" | "multishot" | "barrier" => {
                if kind.replace(key).is_some() {
                    return at(line, "a trigger has one type (oneshot, multishot or barrier)");
                }
            }
            "id" | "count" => {
                let Some(&value) = rest.next() else { return at(line, format!("'{key}' needs a value")) };
                let (slot, n) = if key == "id" { (&mut id_, id(value, line, "id")?) } else { (&mut count, small(value, line, "count")?) };
                if slot.replace(n).is_some() {
                    return at(line, format!("{key} is given twice"));
                }
            }
            k => return at(line, format!("unknown word '{k}' in a trigger (id, oneshot, multishot, barrier, count)")),
        }
    }
    let Some(id_) = id_ else { return at(line, "a trigger needs an id") };
    let kind = match (kind, count) {
        (None, _) => return at(line, "a trigger needs a type: oneshot, multishot or barrier"),
        (Some("barrier"), Some(0) | None) => return at(line, "a barrier needs 'count C', C at least 1 (the activations it waits for)"),
        (Some("barrier"), Some(c)) => TriggerKind::Barrier(c),
        (Some(_), Some(_)) => return at(line, "count is for barriers only"),
        (Some("oneshot"), None) => TriggerKind::Oneshot,
        (Some(_), None) => TriggerKind::Multishot,
    };
    Ok(TriggerDef { line, id: id_, kind })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(text: &str) -> (usize, String) {
        let e = parse(text).unwrap_err();
        (e.line, e.problem)
    }

    #[test]
    fn reads_htsims_format() {
        let m = parse("# a comment\nNodes 16\nConnections 2\nTriggers 1\n0->13 id 1 start 0 size 2000000 send_done_trigger 1\r\n13->0 id 2 trigger 1 size 5\ntrigger id 1 oneshot\n\n").unwrap();
        assert_eq!((m.nodes, m.conns.len(), m.triggers.len()), (16, 2, 1));
        assert_eq!(
            m.conns[0],
            Conn { line: 5, src: 0, dst: 13, id: Some(1), start: Start::At(0), size: 2_000_000, send_done: Some(1), recv_done: None }
        );
        assert_eq!(m.conns[1].start, Start::Trigger(1));
        assert_eq!(m.triggers[0], TriggerDef { line: 7, id: 1, kind: TriggerKind::Oneshot });
        // start is in picoseconds; htsim's save writes "start 0.000000".
        let m = parse("Nodes 2\nConnections 1\n0->1 start 1500000.000 size 1\n").unwrap();
        assert_eq!(m.conns[0].start, Start::At(1_500_000));
        assert_eq!(
            parse("Nodes 9\nConnections 1\n1->2 start 0 size 1\ntrigger id 3 barrier count 4\nTriggers 1\n").unwrap().triggers[0].kind,
            TriggerKind::Barrier(4)
        );
    }

    #[test]
    fn every_damage_names_its_line() {
        let head = "Nodes 16\nConnections 1\n";
        for (body, line, words) in [
            ("0->0 start 0 size 1", 3, "sends to itself"),
            ("0->1 start 0 size 0", 3, "size 0"),
            ("0->1 start 0 size 99999999999999999999", 3, "too large"),
            ("0->1 start 0 size 4611686018427387905", 3, "at most 2^62"),
            ("0->1 start 0", 3, "no size"),
            ("0->1 size 5", 3, "no start"),
            ("0->1 start 0 trigger 1 id 1 size 5", 3, "start or trigger"),
            ("0->1 trigger 1 size 5", 3, "needs an id"),
            ("0->1 start 1.5 size 5", 3, "whole number of picoseconds"),
            ("0->1 start -1 size 5", 3, "whole number"),
            ("0->x start 0 size 5", 3, "destination node must be a whole number"),
            ("0->1 start 0 size 5 prio 3", 3, "not modelled"),
            ("0->1 start 0 size 5 colour red", 3, "unknown key 'colour'"),
            ("0->1 start 0 size", 3, "needs a value"),
            ("0->1 id 0 start 0 size 5", 3, "id 0"),
            ("0->1 start 0 size 5\nfailure switch_type TOR switch_id 0 link_id 1", 4, "cannot fail a fat tree's link"),
            ("0->1 start 0 size 5\n0->2 start 0 size 5", 2, "Connections says 1, but the file has 2"),
            ("0->1 start 0 size 5\nhello", 4, "'hello' is not a line"),
            ("0->1 start 0 size 5\ntrigger id 1", 4, "needs a type"),
            ("0->1 start 0 size 5\ntrigger id 1 barrier", 4, "count C"),
            ("0->1 start 0 size 5\ntrigger oneshot", 4, "needs an id"),
            ("0->1 start 0 size 5\ntrigger id 1 oneshot count 2", 4, "barriers only"),
            ("0->1 start 0 size 5\nNodes 3", 4, "twice"),
            ("0->1 start 0 size 5\nTriggers 1", 4, "Triggers says 1, but the file has 0"),
        ] {
            let (l, p) = problem(&format!("{head}{body}\n"));
            assert_eq!(l, line, "{body}: {p}");
            assert!(p.contains(words), "{body}: {p}");
        }
        assert_eq!(problem("Connections 0\n").1, "no 'Nodes N' line");
        assert_eq!(problem("Nodes 4\n0->1 start 0 size 1\n").1, "no 'Connections C' line");
        assert!(problem("Nodes 0\nConnections 0\n").1.contains("Nodes must be 1"));
        assert!(problem("Nodes 4\nConnections 0\n").1.contains("at least one connection"));
        assert!(problem("Nodes 4 5\nConnections 0\n").1.contains("takes one number"));
    }
}
