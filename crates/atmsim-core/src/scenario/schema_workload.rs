//! `[workload]`: a scenario's flows from a connection matrix
//! (`matrix`, htsim's `.cm` format) or a generated pattern (`pattern`, with
//! the pattern's own keys, `scenario/generators.rs`), instead of its
//! `[[flow]]`s (docs/fabrics.md, "Traffic matrices").

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSection {
    /// A connection-matrix file; relative to the scenario file's folder
    /// (the Python layer makes it absolute), or to the working folder when
    /// given by `--set` or in TOML text.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "path")]
    pub matrix: Option<String>,
    /// A generated matrix: "incast", "permutation", "shift_all_to_all" or "ring_allreduce".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The transport of every flow of the matrix, "eqds", "ndp" or "tcp"
    /// (default: the kind all the scenario's own flows share); checked in
    /// `workload.rs` (a `FlowKind` here would make the schema files import
    /// each other).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// A file name that reads as a number (`--set workload.matrix=9`, a bare
/// value being TOML when it parses as TOML) is still that file's name.
fn path<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Option::<toml::Value>::deserialize(d)? {
        None => Ok(None),
        Some(toml::Value::String(t)) => Ok(Some(t)),
        Some(toml::Value::Integer(n)) => Ok(Some(n.to_string())),
        Some(_) => Err(serde::de::Error::custom("must be the path of a connection matrix file (htsim's .cm format)")),
    }
}
