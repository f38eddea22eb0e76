//! Transport protocols. One BSD-style TCP whose congestion control is a
//! narrow part apart from reliable delivery (`tcp::cc`).
pub mod arb;
pub mod boston;
pub mod eqds;
pub mod ndp;
pub mod tcp;
