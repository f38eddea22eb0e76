//! The ATM layer: AAL5 segmentation and reassembly, the ABR service
//! (source, destination, ERICA), and the partial reassembly of TCP Boston.
//! (The frame-aware discard policies of switch ports are drop policies,
//! `net/drop/frame.rs`.)
pub mod aal5;
pub mod abr;
pub mod partial;
