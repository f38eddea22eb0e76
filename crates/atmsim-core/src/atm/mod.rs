//! The ATM layer: AAL5 segmentation and reassembly, and the frame-aware
//! discard policies of switch ports, the ABR service (source, destination,
//! ERICA).
pub mod aal5;
pub mod abr;
pub mod discard;
