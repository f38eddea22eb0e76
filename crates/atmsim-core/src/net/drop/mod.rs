//! The drop layer: whether a unit arriving at a port may enter its buffer.
//!
//! Every way a port loses a unit is one variant of [`DropPolicy`], a plain
//! struct in its own file, asked one question, [`DropPolicy::admit`], which
//! returns an [`Action`] that the port carries out: admit the unit, drop
//! it, or evict the k-th unit waiting and admit it in its place. Only the
//! port counts drops (`PortStats::dropped`).
//! - [`Tail`], [`TailBytes`] (`tail.rs`): a limit in units, or in bytes for
//!   routers whose buffer is given in bytes (a packet enters iff it fits
//!   whole);
//! - [`Ppd`], [`Epd`], [`EomProtect`] (`frame.rs`): the frame-aware cell
//!   discard of ATM switch ports (Romanow & Floyd 1995; Jain et al. 1996),
//!   with per-VC frame state;
//! - [`Red`] (`red.rs`): Floyd & Jacobson's early drop on the average queue,
//!   or with ECN its CE mark of an ECN-capable packet ([`Action::Mark`],
//!   RFC 3168 §7);
//! - [`FairShare`] (`fair_share.rs`): Selective Drop and Fair Buffer
//!   Allocation, EPD with per-VC accounting on a shared FIFO (the "UBR+"
//!   policies of Goyal et al. 1998 and Heinanen & Kilkki 1995);
//! - [`RandomDrop`] (`random_drop.rs`): Mankin's push-out on overflow;
//! - [`DropFront`] (`drop_front.rs`): the oldest waiting packet on overflow;
//! - [`LineLoss`] (`line_loss.rs`): independent random loss of cells before
//!   the port's own policy (Jain et al.'s scattered cell loss);
//! - [`EfciMarking`] (`efci.rs`): a binary ABR switch's EFCI marking of the
//!   cells the port's own policy admits ([`Action::Mark`]).
//!
//! Host adapters never drop ([`DropPolicy::Unlimited`]). A new policy is a
//! file here, declaring itself (`impl Policy`: its names, keys, counters,
//! goldens and docs as [`Mechanism`]s), and one line in [`registry!`]'s list
//! below; the scenario's choices, key checks and golden matrix follow.

mod efci;
mod line_loss;

pub use efci::EfciMarking;
pub use line_loss::LineLoss;

use crate::base::mechanism::{KeyError, Mechanism, Params};
use crate::net::{Limit, PortId, Unit};
use crate::time::{Serializer, Time};

/// Why a unit was dropped (per-port counters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// No room (plain tail drop, or a router's byte/packet limit).
    Tail = 0,
    /// Partial Packet Discard: the rest of a frame that already lost a cell.
    Ppd = 1,
    /// Early Packet Discard: a whole frame refused at its first cell.
    Epd = 2,
    /// A non-EOM cell refused to keep room for EOM cells.
    EomReserve = 3,
    /// A loss the scenario scripts (`flow.drop_segments`), for tests and
    /// teaching: the whole frame is dropped at the sender's adapter.
    Scripted = 4,
    /// Random drop (push-out): a packet chosen at random when the buffer
    /// overflowed (Mankin 1990; RFC 1254).
    RandomDrop = 5,
    /// An early drop by RED (Floyd & Jacobson 1993).
    Red = 6,
    /// Independent random cell loss on a line (`[abr.loss]`: the scattered
    /// loss of Jain et al.'s fast-retransmit experiment).
    Random = 7,
    /// Selective Drop: a frame refused at its first cell because its VC
    /// holds more than its share of a buffer above the threshold.
    SelectiveDrop = 8,
    /// Fair Buffer Allocation's refusal of a frame (as `SelectiveDrop`,
    /// with a bound that tightens as the buffer fills).
    Fba = 9,
    /// A header (trimmed data or a control packet) refused by a trimming
    /// port's full header queue (NDP N3).
    HeaderQueue = 10,
}

impl DropReason {
    pub const COUNT: usize = 11;
    pub const NAMES: [&'static str; 11] =
        ["tail", "ppd", "epd", "eom_reserve", "scripted", "random_drop", "red", "random", "selective_drop", "fba", "header_queue"];
}

/// What the port does with an arriving unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Admit,
    /// Admit the unit with congestion experienced marked: EFCI on a cell
    /// (TM 4.0 §5.10.6), CE on an ECN-capable packet (RFC 3168 §5).
    Mark,
    Drop(DropReason),
    /// Drop the `victim`-th unit waiting (0: the one behind the unit in
    /// transmission, which is never a victim), counted under `reason`, and
    /// admit the arrival.
    Evict {
        victim: usize,
        reason: DropReason,
    },
    /// A trimming port's overflow (NDP N2): cut the most recently queued data
    /// packet to its header and admit the arrival (`newest`), or cut the
    /// arrival. Only a trimming port (`net/trim.rs`) is given this answer.
    Trim {
        newest: bool,
    },
}

/// What a policy's resolution reads of its port and scenario: its limit,
/// the largest frame, the VCs, the queueing, and the keys the scenario sets
/// (already checked against their declarations).
pub struct ResolveCx<'a> {
    /// The port's limit in units (cells, or packets on a router); 0 for a
    /// byte limit, which only "tail" takes.
    pub units: u64,
    /// Cells of the largest frame (ATM), which EPD's default threshold keeps free.
    pub frame_cells: u64,
    pub num_vcs: usize,
    /// The port is one FIFO (`switch.queueing = "fifo"`).
    pub fifo: bool,
    pub params: &'a Params,
}

/// What a port needs to build its policy from a [`DropSpec`].
pub struct PortContext {
    pub limit: Limit,
    pub num_vcs: usize,
    pub seed: u64,
    pub port: PortId,
    /// Transmission time of a full-size packet (RED's unit of idle decay).
    pub packet_time: Time,
}

/// A drop policy a scenario can select: its declarations ([`Mechanism`]:
/// name, keys, counters, goldens, docs), how it reads its keys, and its
/// answer for every unit. Dispatched through the [`DropPolicy`] enum that
/// [`registry!`] writes (one `match`, no `dyn`).
pub trait Policy: Sized {
    /// The names it is selected by (one per [`Mechanism`]).
    const MECHANISMS: &'static [Mechanism];
    /// Its parameters as resolved for one port.
    type Spec: Clone + Copy + std::fmt::Debug + PartialEq;
    /// May it evict a waiting unit ([`Action::Evict`])? Only on a FIFO
    /// port, which knows where each waiting unit is.
    const EVICTS: bool = false;
    /// Is its limit in bytes (a trimming port's data queue) rather than units?
    const BYTES: bool = false;
    /// Its parameters for a port, from the mechanism `name` it was selected as.
    fn resolve(name: &str, cx: &ResolveCx) -> Result<Self::Spec, KeyError>;
    /// The policy of one port with a limit of `units`.
    fn build(spec: Self::Spec, units: u64, cx: &PortContext) -> Self;
    /// The fate of `unit` arriving at `now` to a buffer holding `q` units
    /// (counting the unit in transmission).
    fn admit(&mut self, unit: &Unit, q: u64, now: Time, line: &Serializer) -> Action;
    /// Its limit in units.
    fn limit(&self) -> u64;
    /// May it mark units ([`Action::Mark`])? Such a port reports the units it marked.
    fn may_mark(&self) -> bool {
        false
    }
    /// Its own counters for the port's summary (named in its [`Mechanism::counters`]).
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

impl<P: Policy> Policy for Box<P> {
    const MECHANISMS: &'static [Mechanism] = P::MECHANISMS;
    type Spec = P::Spec;
    const EVICTS: bool = P::EVICTS;
    const BYTES: bool = P::BYTES;
    fn resolve(name: &str, cx: &ResolveCx) -> Result<Self::Spec, KeyError> {
        P::resolve(name, cx)
    }
    fn build(spec: Self::Spec, units: u64, cx: &PortContext) -> Self {
        Box::new(P::build(spec, units, cx))
    }
    #[inline(always)]
    fn admit(&mut self, unit: &Unit, q: u64, now: Time, line: &Serializer) -> Action {
        P::admit(self, unit, q, now, line)
    }
    fn limit(&self) -> u64 {
        P::limit(self)
    }
    fn may_mark(&self) -> bool {
        P::may_mark(self)
    }
    fn counters(&self) -> Vec<(&'static str, u64)> {
        P::counters(self)
    }
}

/// Writes, from the one list of registered policies: [`DropSpec`] (a
/// policy as the scenario resolves it), [`DropPolicy`] (the policy of one
/// port: the registered ones and the core's own — `Unlimited` for host
/// adapters, `TailBytes` for a buffer in bytes, and the `LineLoss` and
/// `EfciMarking` that services put in front of a port's policy),
/// [`POLICIES`], [`resolve`] and the dispatch of every [`Policy`] method.
macro_rules! registry {
    ($($module:ident { $($variant:ident: $ty:ty),* $(,)? },)*) => {
        $(mod $module; pub use $module::*;)*

        /// A port's drop policy as the scenario resolves it
        /// (`scenario::PortModel`): the policy and its parameters, before
        /// the port's limit, its random stream and its per-VC state make it
        /// a [`DropPolicy`].
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum DropSpec {
            $($($variant(<$ty as Policy>::Spec),)*)*
        }

        impl DropSpec {
            /// Is the policy's limit in bytes (it takes a byte buffer itself)?
            pub fn in_bytes(&self) -> bool {
                match self {
                    $($(DropSpec::$variant(_) => <$ty as Policy>::BYTES,)*)*
                }
            }
        }

        /// The drop policy of one port. (`repr(u8)`: an explicit tag byte,
        /// tested with one compare on every unit.) The variants with large
        /// state are boxed, so that a port's policy and its per-unit counters
        /// share a cache line (see `Port`).
        #[derive(Clone, Debug)]
        #[repr(u8)]
        pub enum DropPolicy {
            /// Host adapters: everything enters.
            Unlimited,
            TailBytes(TailBytes),
            LineLoss(Box<LineLoss>),
            EfciMarking(Box<EfciMarking>),
            $($($variant($ty),)*)*
        }

        /// Does the policy registered as `name` under `selected_by` take its
        /// limit in bytes?
        pub fn in_bytes(selected_by: &str, name: &str) -> bool {
            $($(
                if <$ty as Policy>::MECHANISMS.iter().any(|m| m.selected_by == selected_by && m.name == name) {
                    return <$ty as Policy>::BYTES;
                }
            )*)*
            false
        }

        /// Every registered policy's declarations, in registration order.
        pub const POLICIES: &[&[Mechanism]] = &[$($(<$ty as Policy>::MECHANISMS,)*)*];

        /// The spec of the policy registered as `name` under the key
        /// `selected_by`, resolved for one port; `None` if no policy is
        /// registered so.
        pub fn resolve(selected_by: &str, name: &str, cx: &ResolveCx) -> Option<Result<DropSpec, KeyError>> {
            $($(
                if <$ty as Policy>::MECHANISMS.iter().any(|m| m.selected_by == selected_by && m.name == name) {
                    return Some(<$ty as Policy>::resolve(name, cx).map(DropSpec::$variant));
                }
            )*)*
            None
        }

        impl DropPolicy {
            fn registered(spec: DropSpec, units: u64, cx: &PortContext) -> Self {
                match spec {
                    $($(DropSpec::$variant(s) => DropPolicy::$variant(<$ty as Policy>::build(s, units, cx)),)*)*
                }
            }

            /// The buffer limit this policy enforces.
            pub fn limit(&self) -> Limit {
                match self {
                    DropPolicy::Unlimited => Limit::Unlimited,
                    DropPolicy::TailBytes(t) => Limit::Bytes(t.limit),
                    DropPolicy::LineLoss(l) => l.inner.limit(),
                    DropPolicy::EfciMarking(e) => e.inner.limit(),
                    $($(DropPolicy::$variant(p) if <$ty as Policy>::BYTES => Limit::Bytes(Policy::limit(p)),)*)*
                    $($(DropPolicy::$variant(p) => Limit::Units(Policy::limit(p)),)*)*
                }
            }

            /// Is occupancy measured in bytes (rather than units)?
            #[inline]
            pub fn counts_bytes(&self) -> bool {
                match self {
                    DropPolicy::TailBytes(_) => true,
                    $($(DropPolicy::$variant(_) => <$ty as Policy>::BYTES,)*)*
                    _ => false,
                }
            }

            /// May this policy evict a waiting unit ([`Action::Evict`])?
            /// Only on a FIFO port, which knows where each waiting unit is.
            #[inline]
            pub fn may_evict(&self) -> bool {
                match self {
                    $($(DropPolicy::$variant(_) => <$ty as Policy>::EVICTS,)*)*
                    _ => false,
                }
            }

            /// May this policy mark units ([`Action::Mark`])? Such a port
            /// reports the units it marked.
            pub fn may_mark(&self) -> bool {
                match self {
                    DropPolicy::EfciMarking(_) => true,
                    DropPolicy::LineLoss(l) => l.inner.may_mark(),
                    $($(DropPolicy::$variant(p) => Policy::may_mark(p),)*)*
                    _ => false,
                }
            }

            /// The policy's own counters, for the port's summary.
            pub fn counters(&self) -> Vec<(&'static str, u64)> {
                match self {
                    DropPolicy::LineLoss(l) => l.inner.counters(),
                    DropPolicy::EfciMarking(e) => e.inner.counters(),
                    $($(DropPolicy::$variant(p) => Policy::counters(p),)*)*
                    _ => Vec::new(),
                }
            }

            /// Decides the fate of `unit` arriving at `now` to a buffer
            /// holding `q` (units, or bytes for a byte limit; counting the
            /// unit in transmission); the port's transmitter tells RED since
            /// when an empty queue is idle. Called for every unit at every
            /// port: always inlined.
            #[inline(always)]
            pub fn admit(&mut self, unit: &Unit, q: u64, now: Time, line: &Serializer) -> Action {
                // Tail drop on a unit limit, the plain switch port, decided
                // first (one test rather than a jump table).
                if let DropPolicy::Tail(t) = self {
                    return Tail::admit(t, q);
                }
                match self {
                    DropPolicy::Unlimited => Action::Admit,
                    DropPolicy::TailBytes(t) => t.admit(unit, q),
                    DropPolicy::LineLoss(l) => l.admit(unit, q, now, line),
                    DropPolicy::EfciMarking(e) => e.admit(unit, q, now, line),
                    $($(DropPolicy::$variant(p) => Policy::admit(p, unit, q, now, line),)*)*
                }
            }
        }
    };
}

// The registry: every drop policy a scenario can select, one line per file
// (`file { Variant: its type }`, boxed when its state is large). Each file
// declares the rest: `impl Policy` with its `Mechanism`s.
registry! {
    tail { Tail: Tail },
    frame { Ppd: Ppd, Epd: Epd, EomProtect: EomProtect },
    red { Red: Box<Red> },
    random_drop { RandomDrop: Box<RandomDrop> },
    drop_front { DropFront: DropFront },
    dctcp_mark { DctcpMark: DctcpMark },
    fair_share { FairShare: Box<FairShare> },
    trim { Trim: Box<TrimPolicy> },
}

/// Every registered policy's declaration, one per name.
pub fn policies() -> impl Iterator<Item = &'static Mechanism> {
    POLICIES.iter().flat_map(|m| m.iter())
}

impl DropPolicy {
    pub fn new(spec: DropSpec, cx: &PortContext) -> Self {
        match cx.limit {
            Limit::Unlimited => DropPolicy::Unlimited,
            // A trimming port's data queue is counted in bytes (NDP N2).
            Limit::Bytes(limit) if spec.in_bytes() => DropPolicy::registered(spec, limit, cx),
            Limit::Bytes(limit) => DropPolicy::TailBytes(TailBytes { limit }),
            Limit::Units(units) => DropPolicy::registered(spec, units, cx),
        }
    }

    /// This policy behind random loss of `probability` (cells of the VBR
    /// background excepted) drawn from the port's own stream.
    pub fn behind_line_loss(self, probability: f64, seed: u64, port: PortId) -> Self {
        DropPolicy::LineLoss(Box::new(LineLoss::new(probability, seed, port, self)))
    }

    /// This policy with EFCI marking of data cells while the queue is long
    /// (between `high` and `low`, with hysteresis).
    pub fn with_efci_marking(self, high: u64, low: u64) -> Self {
        DropPolicy::EfciMarking(Box::new(EfciMarking::new(high, low, self)))
    }

    /// Is this policy's EFCI marking in its congested state (as of the last
    /// unit offered)? False for a policy that does not mark.
    pub fn efci_congested(&self) -> bool {
        match self {
            DropPolicy::EfciMarking(e) => e.is_congested(),
            DropPolicy::LineLoss(l) => l.inner.efci_congested(),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::VcId;

    fn line() -> Serializer {
        Serializer::new(crate::time::Rate::new(1, 1).unwrap())
    }

    fn unit(vc: u32, index: u16, ncells: u16, wire_bytes: u16) -> Unit {
        Unit::new(VcId(vc), 0, index, ncells, wire_bytes)
    }

    fn policy(spec: DropSpec, limit: Limit, num_vcs: usize) -> DropPolicy {
        DropPolicy::new(spec, &PortContext { limit, num_vcs, seed: 1, port: PortId(0), packet_time: 1 })
    }

    #[test]
    fn unlimited_admits_everything() {
        let mut a = policy(DropSpec::Tail(()), Limit::Unlimited, 1);
        assert_eq!(a.admit(&unit(0, 0, 1, 53), u64::MAX - 1, 0, &line()), Action::Admit);
        assert_eq!(a.limit(), Limit::Unlimited);
    }

    #[test]
    fn a_byte_limit_is_tail_drop_of_whole_packets() {
        let mut a = policy(DropSpec::Tail(()), Limit::Bytes(1000), 1);
        assert_eq!(a.admit(&unit(0, 0, 1, 600), 400, 0, &line()), Action::Admit);
        assert_eq!(a.admit(&unit(0, 0, 1, 601), 400, 0, &line()), Action::Drop(DropReason::Tail));
        assert!(a.counts_bytes() && !a.may_evict());
    }

    #[test]
    fn frame_state_is_per_vc() {
        // PPD: VC 0 loses a middle cell and discards the rest of its frame;
        // VC 1's frame at the same port is unaffected.
        let mut a = policy(DropSpec::Ppd(()), Limit::Units(4), 2);
        assert_eq!(a.admit(&unit(0, 1, 3, 53), 4, 0, &line()), Action::Drop(DropReason::Tail));
        assert_eq!(a.admit(&unit(1, 1, 3, 53), 0, 0, &line()), Action::Admit);
        assert_eq!(a.admit(&unit(0, 1, 3, 53), 0, 0, &line()), Action::Drop(DropReason::Ppd));
        assert_eq!(a.limit(), Limit::Units(4));
    }

    #[test]
    fn every_spec_keeps_the_limit_it_was_built_with() {
        let red = RedConfig { min_th: 5.0, max_th: 15.0, max_p: 0.02, w_q: 0.002, ecn: false, gentle: false };
        let specs = [
            DropSpec::Tail(()),
            DropSpec::Ppd(()),
            DropSpec::Epd(10),
            DropSpec::EomProtect(EomProtectSpec { reserve: 2, ppd: true }),
            DropSpec::RandomDrop(true),
            DropSpec::Red(red),
            DropSpec::DropFront(()),
            DropSpec::FairShare(FairShareConfig { rule: FairShareRule::SelectiveDrop, threshold: 18, z: 0.8 }),
            DropSpec::FairShare(FairShareConfig { rule: FairShareRule::FairBufferAllocation, threshold: 18, z: 0.8 }),
        ];
        for spec in specs {
            let p = policy(spec, Limit::Units(20), 3);
            assert_eq!(p.limit(), Limit::Units(20), "{spec:?}");
            assert_eq!(p.may_evict(), matches!(spec, DropSpec::RandomDrop(_) | DropSpec::DropFront(_)), "{spec:?}");
            assert_eq!(p.clone().behind_line_loss(0.5, 1, PortId(0)).limit(), Limit::Units(20));
            let marking = p.clone().with_efci_marking(8, 4);
            assert!(marking.limit() == Limit::Units(20) && marking.may_mark() && !p.may_mark());
        }
    }

    #[test]
    fn a_port_policy_stays_small() {
        // It shares the port's fourth cache line with the per-unit counters.
        assert!(std::mem::size_of::<DropPolicy>() <= 48, "{}", std::mem::size_of::<DropPolicy>());
    }
}
