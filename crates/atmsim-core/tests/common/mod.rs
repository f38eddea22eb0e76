//! Helpers shared by the whole-run invariant tests (`invariants.rs` and
//! `credit_invariants.rs`): the random two-switch scenario both build on.

// A scenario from the property test's drawn parameters, one argument each.
#[allow(clippy::too_many_arguments)]
pub fn random_scenario(
    atm: bool,
    flows: usize,
    buffer_cells: u64,
    policy: &str,
    rate_mbps: u32,
    delay_us: u32,
    mss: u32,
    variant: &str,
    delack: bool,
) -> String {
    let mut t = format!(
        "name = \"prop\"\nnetwork = \"{}\"\nduration = \"300ms\"\n[tcp]\nmss = \"{mss}B\"\nwindow = \"64KiB\"\nvariant = \"{variant}\"\ndelayed_ack = {delack}\ntick = \"10ms\"\n{atm_section}[switch]\nbuffer = \"{}\"\npolicy = \"{}\"\n[topology]\nhosts = [{}]\nswitches = [\"X\", \"Y\"]\n",
        if atm { "atm" } else { "packet" },
        if atm { format!("{buffer_cells}cells") } else { format!("{}B", (buffer_cells * 48).max(mss as u64 + 40)) },
        if atm { policy } else { "tail" },
        (0..flows).flat_map(|i| [format!("\"S{i}\""), format!("\"D{i}\"")]).collect::<Vec<_>>().join(", "),
        // The encapsulation is for ATM cells; on a packet network it is refused.
        atm_section = if atm { "[atm]\nencapsulation = \"aal5-llc\"\n" } else { "" },
    );
    for i in 0..flows {
        t += &format!("[[link]]\nends = [\"S{i}\", \"X\"]\nrate = \"{}Mbps\"\ndelay = \"1us\"\n", rate_mbps * 2);
        t += &format!("[[link]]\nends = [\"Y\", \"D{i}\"]\nrate = \"{}Mbps\"\ndelay = \"1us\"\n", rate_mbps * 2);
    }
    t += &format!("[[link]]\nends = [\"X\", \"Y\"]\nrate = \"{rate_mbps}Mbps\"\ndelay = \"{delay_us}us\"\n");
    for i in 0..flows {
        t += &format!("[[flow]]\nname = \"f{i}\"\nsrc = \"S{i}\"\ndst = \"D{i}\"\nstart = \"{}us\"\n", i * 137);
    }
    t
}
