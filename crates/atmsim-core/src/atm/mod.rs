//! The ATM layer: AAL5 segmentation and reassembly, and the frame-aware
//! discard policies of switch ports, the ABR service (source, destination,
//! ERICA), and the partial reassembly of TCP Boston.
pub mod aal5;
pub mod abr;
pub mod discard;
pub mod partial;
