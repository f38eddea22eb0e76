//! The ATM layer: AAL5 segmentation and reassembly, and the frame-aware
//! discard policies of switch ports.
pub mod aal5;
pub mod discard;
