//! `[abr]` and `[abr.erica]`: the ABR service of ATM Forum TM 4.0 with ERICA
//! switches, as Jain et al. simulate TCP over it ("TCP/IP over ABR", ATM
//! Forum 96-0177R1). Present, it makes every TCP VC an ABR VC (data and ACK
//! directions) and runs ERICA at every switch output port. Defaults are the
//! slide "Simulation Parameters" (TBE 512), ATM Forum names throughout.

use crate::atm::abr::destination::Turnaround;
use crate::atm::abr::erica::EricaVariant;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AbrSection {
    /// Peak cell rate, e.g. "155.52Mbps" (424 bits per cell).
    pub pcr: String,
    /// Minimum cell rate: a rate, or "0".
    pub mcr: String,
    /// Initial cell rate (at setup, and after an idle longer than ADTF).
    pub icr: String,
    /// Rate increase factor (× PCR per backward RM cell), in (0, 1].
    pub rif: f64,
    /// Rate decrease factor (× ACR per backward RM cell with CI), in (0, 1].
    pub rdf: f64,
    /// Cells per forward RM cell (2..=256).
    pub nrm: u32,
    /// Fewest cells between forward RM cells when Trm forces one.
    pub mrm: u32,
    /// Longest time between forward RM cells.
    pub trm: String,
    /// Transient buffer exposure in cells.
    pub tbe: u32,
    /// Forward RM cells without feedback before rule 6 cuts; default
    /// ⌈TBE/Nrm⌉.
    pub crm: Option<u32>,
    /// Cutoff decrease factor of rule 6, in [0, 1] (0: off).
    pub cdf: f64,
    /// ACR decrease time factor.
    pub adtf: String,
    /// Tagged cell rate (cells/s) for out-of-rate RM cells.
    pub tcr: f64,
    /// "immediate" (default) or "tm4": how destinations return RM cells.
    pub turnaround: TurnaroundName,
    /// The switches' ABR algorithm: "erica" (explicit rate, default) or
    /// "efci" (binary feedback, `[abr.efci]`).
    pub switch: AbrSwitchName,
    pub erica: EricaSection,
    pub efci: EfciSection,
    /// A VBR on/off background; absent: none.
    pub vbr: Option<VbrSection>,
    /// Independent random loss of ABR cells entering one port; absent: none.
    pub loss: Option<LossSection>,
}

/// `[abr.loss]`: "scattered loss" (Jain et al., slide "Effect of Fast
/// Retransmit"), each ABR cell entering `port` lost with `probability`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LossSection {
    pub port: String,
    pub probability: f64,
}

impl Default for LossSection {
    fn default() -> Self {
        LossSection { port: "SW1->SW2".into(), probability: 1e-4 }
    }
}

/// `[abr.vbr]`: the slides' "If VBR background, 100 ms on, 100 ms off,
/// start at t = 2ms", entering `port` with strict priority over ABR there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VbrSection {
    /// The switch output port it loads, "A->B".
    pub port: String,
    /// Cell rate while on (our choice 0.8 x 155.52 Mb/s; the slides give none).
    pub rate: String,
    pub on: String,
    pub off: String,
    pub start: String,
}

impl Default for VbrSection {
    fn default() -> Self {
        VbrSection { port: "SW1->SW2".into(), rate: "124.416Mbps".into(), on: "100ms".into(), off: "100ms".into(), start: "2ms".into() }
    }
}

impl Default for AbrSection {
    fn default() -> Self {
        AbrSection {
            pcr: "155.52Mbps".into(),
            mcr: "0".into(),
            icr: "10Mbps".into(),
            rif: 1.0,
            rdf: 1.0 / 512.0,
            nrm: 32,
            mrm: 2,
            trm: "100ms".into(),
            tbe: 512,
            crm: None,
            cdf: 0.5,
            adtf: "500ms".into(),
            tcr: 10.0,
            turnaround: TurnaroundName::Immediate,
            switch: AbrSwitchName::Erica,
            erica: EricaSection::default(),
            efci: EfciSection::default(),
            vbr: None,
            loss: None,
        }
    }
}

/// `abr.switch`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AbrSwitchName {
    /// ERICA (`[abr.erica]`) lowers the ER of backward RM cells.
    #[default]
    Erica,
    /// EFCI marking (`[abr.efci]`); no switch computes ER.
    Efci,
}

/// `[abr.efci]`: binary-feedback switches (TM 4.0 §5.10.6), read only with
/// `abr.switch = "efci"`. Thresholds count the port's cells, the one in
/// transmission included. Our choice of defaults (no source we checked
/// gives one): congested from 256 cells (0.7 ms of a 155.52 Mb/s line, an
/// eighth of jain96's 2048-cell buffers, so marking starts long before
/// loss) until the queue is back at 128.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EfciSection {
    pub high: u64,
    pub low: u64,
    /// Also set CI in the backward RM cells of a VC whose forward port at
    /// the switch is congested (relative rate marking); default off.
    pub backward_ci: bool,
}

impl Default for EfciSection {
    fn default() -> Self {
        EfciSection { high: 256, low: 128, backward_ci: false }
    }
}

/// `abr.turnaround`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TurnaroundName {
    /// The next cell slot of the destination's line, ahead of its data.
    #[default]
    Immediate,
    /// An in-rate cell of the reverse VC's source (TM 4.0 source rule 3b).
    Tm4,
}

impl From<TurnaroundName> for Turnaround {
    fn from(t: TurnaroundName) -> Self {
        match t {
            TurnaroundName::Immediate => Turnaround::Immediate,
            TurnaroundName::Tm4 => Turnaround::Tm4,
        }
    }
}

/// `[abr.erica]`: the slides' "Target Utilization = 90%, Averaging interval
/// = min{100 cells, 1000 µs}".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EricaSection {
    /// "full" (ATM Forum/96-1172, default), "basic" (the 1995 ERICA) or
    /// "plus" (ERICA+: the target follows the queue, `atm/abr/erica.rs`).
    pub variant: EricaVariantName,
    /// ERICA's target utilisation of the line (not ERICA+'s, which aims at
    /// the whole line and lets the queue set the fraction).
    pub target_utilization: f64,
    pub interval_cells: u32,
    pub interval_time: String,
    pub delta: f64,
    pub one_feedback_per_interval: bool,
    /// ERICA+: the target queueing delay T0 (the target queue is T0 times
    /// the ABR capacity). Our choice of default: 500 us.
    pub target_delay: String,
    /// ERICA+: the queue control function's a (above the target) and b
    /// (below it), and its floor QDLF (published: 1.15, 1.05, 0.5).
    pub a: f64,
    pub b: f64,
    pub qdlf: f64,
}

impl Default for EricaSection {
    fn default() -> Self {
        EricaSection {
            variant: EricaVariantName::Full,
            target_utilization: 0.9,
            interval_cells: 100,
            interval_time: "1000us".into(),
            delta: 0.1,
            one_feedback_per_interval: false,
            target_delay: "500us".into(),
            a: 1.15,
            b: 1.05,
            qdlf: 0.5,
        }
    }
}

/// `abr.erica.variant`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EricaVariantName {
    Basic,
    #[default]
    Full,
    Plus,
}

impl From<EricaVariantName> for EricaVariant {
    fn from(v: EricaVariantName) -> Self {
        match v {
            EricaVariantName::Basic => EricaVariant::Basic,
            EricaVariantName::Full => EricaVariant::Full,
            EricaVariantName::Plus => EricaVariant::Plus,
        }
    }
}
