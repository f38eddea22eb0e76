"""ARCHITECTURE.md's "Adding a mechanism", followed to the letter on a copy of the core: a toy drop
policy (with a key and a counter), a toy service (turned on by its own key, with a summary block)
and a toy TCP variant (with its own window growth), each one new file and one registration line. The copy's own tests then show that the choices in error
messages, the key checks, the summary and the registry pick them up, that the golden test catches
the golden the toy never recorded, and that the docs test would catch its missing docs rows.

Slow (the copy's core is compiled in the quick profile, in the checkout's target folder: its
dependencies are those `cargo test --profile quick` compiled, a few minutes if they are not there yet)."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from atmsim import registry_doc

ROOT = Path(__file__).resolve().parent.parent
CORE = "crates/atmsim-core"

TOY_POLICY = '''//! A toy drop policy: admits while the queue is below a share of the limit.
use super::{Action, DropReason, Policy, PortContext, ResolveCx};
use crate::base::mechanism::{Bound, Golden, Key, KeyDefault, KeyError, KeyKind, Mechanism, Networks};
use crate::net::Unit;
use crate::time::{Serializer, Time};

#[derive(Clone, Debug)]
pub struct Toy {
    limit: u64,
    bound: u64,
    refusals: u64,
}

impl Policy for Toy {
    const MECHANISMS: &'static [Mechanism] = &[Mechanism {
        name: "toy",
        selected_by: "switch.policy",
        networks: Networks::Atm,
        about: "a toy: admits while the queue is below a share of the limit",
        docs: "policies.md",
        keys: &[Key {
            name: "switch.toy.share",
            kind: KeyKind::Real { lo: Bound::Open(0.0), hi: Bound::Closed(1.0) },
            default: KeyDefault::Value("0.5"),
            about: "the share of the limit the queue may reach",
        }],
        counters: &["tail", "toy_refusals"],
        goldens: &[Golden { scenario: "aron97-topo1-atm", variation: "toy", overrides: &["switch.policy=toy"] }],
    }];
    type Spec = f64;
    fn resolve(_: &str, cx: &ResolveCx) -> Result<f64, KeyError> {
        Ok(cx.params.real("switch.toy.share", 0.5))
    }
    fn build(share: f64, units: u64, _: &PortContext) -> Self {
        Toy { limit: units, bound: ((share * units as f64) as u64).max(1), refusals: 0 }
    }
    fn admit(&mut self, _: &Unit, q: u64, _: Time, _: &Serializer) -> Action {
        if q < self.bound {
            Action::Admit
        } else {
            self.refusals += 1;
            Action::Drop(DropReason::Tail)
        }
    }
    fn limit(&self) -> u64 {
        self.limit
    }
    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("toy_refusals", self.refusals)]
    }
}
'''

TOY_GROWTH = '''//! A toy window growth: one segment more per new ACK, always (no congestion avoidance).
use super::{Growth, WindowGrowth};
use crate::base::mechanism::Golden;
use crate::transport::tcp::congestion::recovery::{tahoe::Tahoe, Recovery};
use crate::transport::tcp::congestion::{declare, AckCtx, EcnUse, TcpVariant, Window};

#[derive(Clone, Debug, Default)]
pub struct Toy;

impl WindowGrowth for Toy {
    const VARIANTS: &'static [TcpVariant] = &[TcpVariant {
        mechanism: declare(
            "toy-growth",
            "a toy: one segment more per new ACK, Tahoe's recovery",
            &[Golden { scenario: "aron97-topo1-atm", variation: "toy-growth", overrides: &["tcp.variant=toy-growth"] }],
        ),
        growth: |_| Growth::Toy(Toy),
        recovery: || Recovery::Tahoe(Tahoe::default()),
        afr: false,
        initial_window: 1,
        sack_option: false,
        ecn: EcnUse::Optional,
    }];
    fn on_ack(&mut self, w: &mut Window, _: &AckCtx) {
        w.cwnd = (w.cwnd + w.mss).min(w.max_cwnd);
    }
    fn restart_window(&self, mss: u64) -> u64 {
        mss
    }
    fn on_window_cut(&mut self, w: &mut Window, newcwnd: u64) {
        w.cwnd = newcwnd;
    }
    fn on_recovery_exit(&mut self, w: &mut Window) {
        w.cwnd = w.ssthresh;
    }
}
'''

TOY_SERVICE = '''//! A toy service: counts the frames cut at sources, turned on by its own key.
use super::super::service::{ServiceKind, Takes};
use super::super::World;
use crate::base::mechanism::{Golden, Key, KeyDefault, KeyKind, Mechanism, Networks};
use crate::net::{FrameHeader, VcId, VcTable};
use crate::scenario::Model;

pub(in crate::world) struct Toy {
    frames: u64,
}

impl ServiceKind for Toy {
    const MECHANISM: Mechanism = Mechanism {
        name: "toy-frames",
        selected_by: "toy.count_frames",
        networks: Networks::Both,
        about: "a toy: counts the frames cut at sources",
        docs: "scenarios.md",
        keys: &[Key { name: "toy.count_frames", kind: KeyKind::Bool, default: KeyDefault::Value("false"), about: "count them" }],
        counters: &["toy-frames"],
        goldens: &[Golden { scenario: "aron97-topo1-atm", variation: "toy-frames", overrides: &["toy.count_frames=true"] }],
    };
    fn from_model(model: &Model, _: &VcTable, _: bool) -> Option<Self> {
        model.params.bool("toy.count_frames", false).then_some(Toy { frames: 0 })
    }
    fn takes(&self) -> Takes {
        Takes { at_source: true, ..Takes::default() }
    }
    fn cut_frame(w: &mut World, me: usize, _: VcId, _: &FrameHeader, _: bool, ncells: u32) -> u32 {
        w.services.at_mut::<Toy>(me).frames += 1;
        ncells
    }
    fn summary_block(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({ "frames": self.frames }))
    }
}
'''

TOY_TEST = r'''
use atmsim_core::scenario::registry;

fn topology1() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/atmsim/scenarios/aron97-topo1-atm.toml")).unwrap()
}

fn run(sets: &[&str]) -> Result<String, String> {
    let mut o: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    o.push("duration=1s".into());
    atmsim_core::run_text(&topology1(), &o, Some(1), false).map(|(s, _)| s.to_json()).map_err(|e| e.to_string())
}

#[test]
fn the_toy_service_is_registered() {
    let summary = run(&["toy.count_frames=true"]).unwrap();
    assert!(summary.contains("\"toy-frames\":{\"frames\":"), "its block is in the summary");
    assert!(!summary.contains("\"frames\":0}"), "it counted the frames it saw");
    assert!(!run(&[]).unwrap().contains("toy-frames"), "off unless its key turns it on");
    assert!(!run(&["toy.count_frames=false"]).unwrap().contains("toy-frames"), "its default restated");
    assert!(atmsim_core::mechanisms().any(|m| m.name == "toy-frames"));
    assert!(atmsim_core::registry_json().contains("toy.count_frames"));
}

#[test]
fn the_toys_are_registered() {
    let e = registry::find("switch.policy", "nope").unwrap_err().to_string();
    assert!(e.contains("\"toy\""), "{e}");
    let e = registry::find("tcp.variant", "nope").unwrap_err().to_string();
    assert!(e.contains("\"toy-growth\""), "{e}");
    let summary = run(&["switch.policy=toy", "switch.toy.share=0.25", "switch.buffer=48KB"]).unwrap();
    assert!(summary.contains("\"toy_refusals\":"), "the toy's counter is in the summary");
    assert!(summary.contains("\"balanced\":true"), "the accounting holds");
    let e = run(&["switch.toy.share=0.25"]).unwrap_err();
    assert!(e.starts_with("switch.toy.share: does nothing here"), "{e}");
    let e = run(&["switch.policy=toy", "switch.toy.share=2"]).unwrap_err();
    assert!(e.starts_with("switch.toy.share: must be a number in (0, 1]"), "{e}");
    run(&["tcp.variant=toy-growth"]).unwrap();
    std::fs::write(std::env::var("TOY_REGISTRY").unwrap(), atmsim_core::registry_json()).unwrap();
}
'''


def _register(path: Path, after: str, line: str):
    text = path.read_text(encoding="utf-8")
    assert text.count(after) == 1, f"{path}: the registry line {after!r} moved; update the recipe test"
    path.write_text(text.replace(after, after + "\n" + line), encoding="utf-8")


def _cargo(copy: Path, *args, env=None):
    # The checkout's own target folder and profile (the quick one: no LTO, the same results sooner):
    # the dependencies `cargo test --profile quick` compiled for the checkout are not compiled again.
    # The copy's crates carry their own version (_copy_manifests), so their artifacts never take the
    # checkout's names.
    target = Path(ROOT, os.environ.get("CARGO_TARGET_DIR") or "target")
    return subprocess.run(["cargo", "test", "--profile", "quick", "--offline", "-p", "atmsim-core", *args], cwd=copy,
                          capture_output=True, text=True, env={**os.environ, "CARGO_TARGET_DIR": str(target), **(env or {})},
                          timeout=1500)


def _copy_manifests(copy: Path):
    """The workspace's manifests and lock file, the copy's version made its own: cargo names a crate's
    artifacts after its name, version and place in the workspace, which the copy otherwise shares."""
    for f in ("Cargo.toml", "Cargo.lock", "rustfmt.toml"):
        shutil.copy(ROOT / f, copy / f)
    manifest = copy / "Cargo.toml"
    text = manifest.read_text(encoding="utf-8")
    assert text.count('\nversion = "') == 1, "the workspace's version line moved; update the recipe test"
    manifest.write_text(re.sub(r'\nversion = "([^"]+)"', r'\nversion = "\1-recipe"', text), encoding="utf-8")


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo")
def test_a_toy_drop_policy_service_and_tcp_variant_are_one_file_and_one_line_each(tmp_path):
    copy = tmp_path / "atmsim"
    copy.mkdir()
    _copy_manifests(copy)
    shutil.copytree(ROOT / CORE, copy / CORE, ignore=shutil.ignore_patterns("target"))
    shutil.copytree(ROOT / "crates/atmsim-py", copy / "crates/atmsim-py", ignore=shutil.ignore_patterns("target"))
    shutil.copytree(ROOT / "python/atmsim/scenarios", copy / "python/atmsim/scenarios")
    src = copy / CORE / "src"

    # The recipe: one new file and one registration line each.
    (src / "net/drop/toy.rs").write_text(TOY_POLICY, encoding="utf-8")
    _register(src / "net/drop/mod.rs", "    fair_share { FairShare: Box<FairShare> },", "    toy { Toy: Toy },")
    (src / "transport/tcp/congestion/growth/toy.rs").write_text(TOY_GROWTH, encoding="utf-8")
    _register(src / "transport/tcp/congestion/growth/mod.rs", "    vegas { Vegas: vegas::Vegas },", "    toy { Toy: toy::Toy },")
    (src / "world/services/toy.rs").write_text(TOY_SERVICE, encoding="utf-8")
    _register(src / "world/services.rs", "    input_rr { InputRoundRobin: InputRoundRobin },", "    toy { Toy: toy::Toy },")
    (copy / CORE / "tests/toy.rs").write_text(TOY_TEST, encoding="utf-8")

    registry = tmp_path / "registry.json"
    r = _cargo(copy, "--test", "toy", env={"TOY_REGISTRY": str(registry)})
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]

    # The golden test accepts the toy's declaration but fails on the golden it never recorded.
    r = _cargo(copy, "--test", "golden", "registered")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    r = _cargo(copy, "--test", "golden", "variations_match_their_goldens")
    out = r.stdout + r.stderr
    assert r.returncode != 0 and "missing golden" in out and "aron97-topo1-atm.toy" in out, out[-3000:]

    # The docs block rendered from the copy's registry has the toys' rows, which docs/scenarios.md
    # lacks: tests/test_registry.py would fail until `python -m atmsim.registry_doc` is run.
    mechanisms = json.loads(registry.read_text(encoding="utf-8"))
    block = registry_doc.render(mechanisms)
    assert '`"toy"`' in block and "`switch.toy.share`" in block and '`"toy-growth"`' in block and '`"toy-frames"`' in block
    docs = (ROOT / "docs/scenarios.md").read_text(encoding="utf-8")
    assert registry_doc.replace_block(docs, block) != docs
