//! Quantities with units in scenario files: times (`"30ms"`), sizes
//! (`"192.5KB"`, `"512KiB"`), buffers (`"512cells"`, `"21packets"`) and
//! rates (`"141.33Mbps"`, `"3us/cell"`). Decimals are parsed exactly; k, M,
//! G are powers of 1000 and Ki, Mi, Gi powers of 1024 (IEC 60027-2), b is a
//! bit and B a byte. The papers mix the conventions (Aron & Druschel's
//! "192.5K" buffer is decimal, their "512KB" window binary), so a scenario
//! spells out which it means.

use crate::time::{Rate, Time, PS_PER_S};

/// A decimal number as mantissa / 10^decimals.
fn parse_decimal(s: &str) -> Result<(u128, u32), String> {
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    let digits_only = int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits_only || frac.len() > 18 {
        return Err(format!("'{s}' is not a number"));
    }
    let digits = format!("{int}{frac}");
    let m = digits.parse().map_err(|_| format!("'{s}' is too large"))?;
    Ok((m, frac.len() as u32))
}

/// Rejects negative quantities with a clear message.
fn non_negative(s: &str) -> Result<(), String> {
    if s.trim_start().starts_with('-') {
        return Err(format!("'{}' must not be negative", s.trim()));
    }
    Ok(())
}

/// Splits "12.5ms" into ("12.5", "ms").
fn split_unit(s: &str) -> (&str, &str) {
    let s = s.trim();
    let i = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    (&s[..i], s[i..].trim())
}

/// value × mult exactly, if it is an integer.
fn exact(s: &str, mult: u128) -> Result<u128, String> {
    let (m, d) = parse_decimal(s)?;
    let den = 10u128.pow(d);
    let v = m.checked_mul(mult).ok_or_else(|| format!("'{s}' is too large"))?;
    if v % den != 0 {
        return Err(format!("'{s}' is not a whole number of the base unit"));
    }
    Ok(v / den)
}

pub fn parse_time(s: &str) -> Result<Time, String> {
    non_negative(s)?;
    let (num, unit) = split_unit(s);
    let mult: u128 = match unit {
        "s" => PS_PER_S as u128,
        "ms" => 1_000_000_000,
        "us" | "µs" => 1_000_000,
        "ns" => 1_000,
        "ps" => 1,
        "" => return Err(format!("'{s}' needs a time unit (s, ms, us, ns, ps)")),
        u => return Err(format!("unknown time unit '{u}' in '{s}' (use s, ms, us, ns, ps)")),
    };
    let v = exact(num, mult)?;
    match Time::try_from(v) {
        Ok(t) if t <= MAX_TIME => Ok(t),
        _ => Err(format!("'{s}' is too large (at most {} s, about 3 days)", MAX_TIME / PS_PER_S)),
    }
}

/// The longest time a scenario may state (2^58 ps, 288,230 s): a run's clock
/// adds durations, delays and timers, and a path sums the delays of its links,
/// so a bound well below 2^64 ps keeps every such sum exact (64 links of the
/// longest delay still fit) instead of wrapping round to a short time.
pub const MAX_TIME: Time = 1 << 58;

fn size_mult(unit: &str) -> Option<u128> {
    Some(match unit {
        "B" => 1,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => return None,
    })
}

pub fn parse_bytes(s: &str) -> Result<u64, String> {
    non_negative(s)?;
    let (num, unit) = split_unit(s);
    let mult = size_mult(unit).ok_or_else(|| format!("unknown size unit '{unit}' in '{s}' (use B, KB, MB, GB, KiB, MiB, GiB)"))?;
    u64::try_from(exact(num, mult)?).map_err(|_| format!("'{s}' is too large"))
}

/// A whole count that fits in 64 bits.
fn count(s: &str, num: &str) -> Result<u64, String> {
    u64::try_from(exact(num, 1)?).map_err(|_| format!("'{s}' is too large (at most {})", u64::MAX))
}

/// A buffer size as written: in bytes (payload bytes on ATM), cells or packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferSize {
    Bytes(u64),
    Cells(u64),
    Packets(u64),
}

pub fn parse_buffer(s: &str) -> Result<BufferSize, String> {
    non_negative(s)?;
    let (num, unit) = split_unit(s);
    match unit {
        "cells" | "cell" => Ok(BufferSize::Cells(count(s, num)?)),
        "packets" | "packet" | "pkts" => Ok(BufferSize::Packets(count(s, num)?)),
        _ => parse_bytes(s)
            .map(BufferSize::Bytes)
            .map_err(|_| format!("unknown buffer size '{s}' (use bytes like 192.5KB, or N cells, or N packets)")),
    }
}

pub fn parse_rate(s: &str) -> Result<Rate, String> {
    if s.trim_start().starts_with('-') {
        return Err(format!("rate '{}' must be positive", s.trim()));
    }
    // An exact fraction is allowed before the unit: "1378000000/27bps".
    let (s_num, unit_den) = match s.split_once('/') {
        Some((a, b)) if b.starts_with(|c: char| c.is_ascii_digit()) => {
            let (q, rest) = split_unit(b);
            (format!("{a}{rest}"), Some(q.to_string()))
        }
        _ => (s.to_string(), None),
    };
    let unit_den = unit_den.as_deref();
    // A rate of 1 Pb/s or more (a cell every 0.4 ps) is no network's: refuse
    // it rather than let picosecond arithmetic lose its meaning.
    let too_large = || format!("rate '{s}' is too large (below 1000Tbps)");
    let (num, unit) = split_unit(&s_num);
    let bad = || format!("rate '{s}' must be positive");
    if let Some(per) = unit.strip_suffix("/cell") {
        // A cell time: one 53-byte cell (424 bits) per `num per`.
        let t = parse_time(&format!("{num}{per}"))?;
        if t == 0 {
            return Err(bad());
        }
        return Rate::new(424, t as u128).ok_or_else(bad);
    }
    let mult: u128 = match unit {
        "bps" | "b/s" => 1,
        "kbps" | "kb/s" | "Kbps" => 1_000,
        "Mbps" | "Mb/s" => 1_000_000,
        "Gbps" | "Gb/s" => 1_000_000_000,
        "cells/s" => 424,
        "B/s" => 8,
        "kB/s" | "KB/s" => 8_000,
        "MB/s" => 8_000_000,
        "GB/s" => 8_000_000_000,
        "" => return Err(format!("'{s}' needs a rate unit (bps, kbps, Mbps, Gbps, cells/s, or a cell time like 3us/cell)")),
        u => return Err(format!("unknown rate unit '{u}' in '{s}'")),
    };
    let (m, d) = parse_decimal(num).map_err(|e| if e.contains("too large") { too_large() } else { e })?;
    let den = match unit_den {
        Some(q) => parse_decimal(q)
            .ok()
            .filter(|&(_, qd)| qd == 0)
            .map(|(q, _)| q)
            .filter(|&q| q > 0)
            .ok_or_else(|| format!("'{q}' is not a positive integer denominator"))?,
        None => 1,
    };
    // bits per second = m × mult / (10^d × den)  ->  (m × mult) bits per (10^d × den s).
    let bits = m.checked_mul(mult).ok_or_else(too_large)?;
    let ps = (PS_PER_S as u128).checked_mul(10u128.pow(d)).and_then(|x| x.checked_mul(den)).ok_or_else(too_large)?;
    if bits > 0 && bits / ps.max(1) >= 1000 {
        return Err(too_large());
    }
    Rate::new(bits, ps).ok_or_else(bad)
}

/// `x` in the shortest form that reads back as `x` (`1e308`, `0.5`, `2`):
/// what a message echoes of a number the user wrote, never `{}`'s full
/// expansion (309 digits for 1e308).
pub fn short_float(x: f64) -> String {
    let text = format!("{x:?}");
    text.strip_suffix(".0").map(str::to_string).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::PS_PER_US;

    #[test]
    fn times() {
        assert_eq!(parse_time("30ms").unwrap(), 30_000_000_000);
        assert_eq!(parse_time("1.5us").unwrap(), 1_500_000);
        assert!(parse_time("30").is_err());
        assert!(parse_time("30mss").is_err());
        assert!(parse_time("0.1ps").is_err());
        assert!(parse_time("-1s").unwrap_err().contains("negative"));
    }

    #[test]
    fn sizes_decimal_and_binary() {
        assert_eq!(parse_bytes("192.5KB").unwrap(), 192_500);
        assert_eq!(parse_bytes("512KiB").unwrap(), 524_288);
        assert_eq!(parse_bytes("60MB").unwrap(), 60_000_000);
        assert!(parse_bytes("12XB").is_err());
        assert_eq!(parse_buffer("512cells").unwrap(), BufferSize::Cells(512));
        assert_eq!(parse_buffer("21packets").unwrap(), BufferSize::Packets(21));
    }

    #[test]
    fn rates_are_exact() {
        let r = parse_rate("3us/cell").unwrap();
        assert_eq!(r.tx_time(53), 3 * PS_PER_US);
        let r = parse_rate("141.33Mbps").unwrap();
        assert_eq!((r.bits, r.ps), (14133, 100_000_000));
        assert!(parse_rate("0Mbps").is_err());
        assert!(parse_rate("-5Mbps").is_err());
        assert!(parse_rate("5Mbs").is_err());
        let r = parse_rate("1378000000/27bps").unwrap();
        assert!((r.bits_per_second() - 1378000000.0 / 27.0).abs() < 1e-3);
        assert_eq!(parse_rate("15MB/s").unwrap().bits_per_second(), 120e6);
    }

    #[test]
    fn huge_quantities_are_too_large_not_wrapped() {
        assert_eq!(parse_buffer("18446744073709551615cells").unwrap(), BufferSize::Cells(u64::MAX));
        for b in ["18446744073709551616cells", "18446744073709551617cells", "99999999999999999999999packets"] {
            assert!(parse_buffer(b).unwrap_err().contains("too large"), "{b}");
        }
        for r in ["99999999999999999999Gbps", "1000000000000000000000000000000000000000Gbps", "2Pbps", "1001Tbps"] {
            let e = parse_rate(r).unwrap_err();
            assert!(e.contains("too large") || e.contains("unknown"), "{r}: {e}");
        }
        assert!(parse_rate("999999Gbps").is_ok());
        assert!(parse_bytes("18446744073709551616B").unwrap_err().contains("too large"));
        // A time near 2^64 ps once wrapped round to a short delay.
        assert!(parse_time("18446744073709551615ps").unwrap_err().contains("too large"));
        assert!(parse_time("288231s").unwrap_err().contains("at most 288230 s"));
        assert_eq!(parse_time("288230s"), Ok(288_230 * PS_PER_S));
        assert!(parse_time("18446744073709551616ps").unwrap_err().contains("too large"));
    }
}
