//! Credit-based flow control, the N23 scheme of Kung et al. in its counter
//! form (Morris & Kung 1995 §II; Kung, Blackwell & Chapman, SIGCOMM 1994):
//! per VC and link, the sender may have at most N2 + N3 cells outstanding
//! in the receiver's buffer; the receiver reports its forwarded-cell count
//! every N2 cells, and the sender's balance is the buffer reserved minus the
//! cells sent but not yet reported forwarded.

/// Sender-side credit state of one link, per VC, and the receiver's
/// forwarded-cell counter of the same link (kept here, indexed by the link,
/// because the simulator owns both ends).
#[derive(Clone, Debug)]
pub struct Credit {
    /// Buffer reserved per VC at the receiver (N2 + N3).
    pub buf_alloc: u64,
    /// Receiver sends one credit cell per `n2` cells it forwards.
    pub n2: u64,
    pub balance: Vec<i64>,
    pub tx_cnt: Vec<u64>,
    /// Receiver side: cells of the VC that left its buffer (`Fwd_Cnt`).
    pub fwd_cnt: Vec<u64>,
    pub credit_cells: u64,
}

impl Credit {
    pub fn new(num_vcs: usize, buf_alloc: u64, n2: u64) -> Self {
        Credit {
            buf_alloc,
            n2,
            balance: vec![buf_alloc as i64; num_vcs],
            tx_cnt: vec![0; num_vcs],
            fwd_cnt: vec![0; num_vcs],
            credit_cells: 0,
        }
    }

    /// Receiver rule 4: a cell of `vc` left the receiver's buffer; returns
    /// the value of a credit cell to send upstream, if one is due.
    pub fn forwarded(&mut self, vc: usize) -> Option<u64> {
        self.fwd_cnt[vc] += 1;
        if self.fwd_cnt[vc].is_multiple_of(self.n2) {
            self.credit_cells += 1;
            Some(self.fwd_cnt[vc])
        } else {
            None
        }
    }

    /// Sender rule 2: a credit cell carrying `fwd` arrived.
    pub fn update(&mut self, vc: usize, fwd: u64) {
        self.balance[vc] = self.buf_alloc as i64 - (self.tx_cnt[vc] - fwd) as i64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credit_update_is_exact_and_never_exceeds_buf_alloc() {
        let mut c = Credit::new(1, 10, 2);
        for _ in 0..10 {
            c.balance[0] -= 1;
            c.tx_cnt[0] += 1;
        }
        assert_eq!(c.balance[0], 0);
        // A late credit (F = 2) after a newer one (F = 6) only delays credit.
        c.update(0, 6);
        assert_eq!(c.balance[0], 6);
        c.update(0, 2);
        assert_eq!(c.balance[0], 2);
        c.update(0, 10);
        assert_eq!(c.balance[0], 10);
        assert!(c.balance[0] <= c.buf_alloc as i64);
        assert_eq!(c.forwarded(0), None);
        assert_eq!(c.forwarded(0), Some(2));
    }
}
