//! serde's type errors in the user's words (issue 38, rule 7): "invalid
//! type: integer `3`, expected a boolean in `tcp.delayed_ack`" becomes "must
//! be true or false, not 3". Never a parser's or a language's internals
//! ("unit variant", "struct TcpSection", "u64"); other messages pass as
//! they are (unknown keys and words already list the choices).

/// `problem` as the user can read it; the key is named beside it already.
pub fn in_words(problem: &str) -> String {
    // The TOML deserialiser repeats the key at the end ("... in `tcp.window`").
    let problem = match problem.rfind(" in `") {
        Some(i) if problem.ends_with('`') => &problem[..i],
        _ => problem,
    };
    let rest = problem.strip_prefix("invalid type: ").or_else(|| problem.strip_prefix("invalid value: "));
    let Some((found, expected)) = rest.and_then(|r| r.split_once(", expected ")) else {
        return problem.to_string();
    };
    let takes = expected_words(expected);
    let found = match found.strip_prefix("string \"").and_then(|v| v.strip_suffix('"')) {
        Some(text) if takes.starts_with("a whole") && is_integer(text) => match text.parse::<i64>() {
            // A number TOML holds that reached serde as text was written in quotes ("4" was said to be
            // "4 (more than a TOML integer holds)").
            Ok(_) => number_in_quotes(text),
            // A number past what a TOML integer holds reaches serde as text: say it as the number written.
            Err(_) => format!("{text} (more than a TOML integer holds)"),
        },
        Some(text) if takes == "a number" && text.trim().parse::<f64>().is_ok() => number_in_quotes(text),
        _ => found_words(found),
    };
    format!("must be {takes}, not {found}")
}

/// Whole-number digits, with a sign or without.
fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A number written in quotes: text to TOML, so say so and how to write it.
pub(super) fn number_in_quotes(text: &str) -> String {
    format!("the text \"{text}\" (a number in quotes is text: write it without the quotes)")
}

/// What serde says it found, as the value the user wrote.
fn found_words(found: &str) -> String {
    let quoted = |prefix: &str| found.strip_prefix(prefix).map(|v| v.trim_matches('`').to_string());
    // serde writes a float in full (1e308 in 309 digits): echoed in its shortest form.
    if let Some(v) = quoted("floating point ") {
        return v.parse::<f64>().map_or(v, super::units::short_float);
    }
    if let Some(v) = quoted("integer ").or_else(|| quoted("boolean ")) {
        return v;
    }
    if let Some(s) = found.strip_prefix("string ") {
        return s.to_string();
    }
    match found {
        "sequence" => "a list".into(),
        "map" => "a table".into(),
        _ => "that value".into(),
    }
}

/// What the key takes, in words.
fn expected_words(expected: &str) -> String {
    let max = match expected {
        "u8" => Some(u8::MAX as u64),
        "u16" => Some(u16::MAX as u64),
        "u32" => Some(u32::MAX as u64),
        // A TOML integer is signed 64-bit: 2^63 - 1 is the most a file or --set can write (the range
        // said 0 to 2^64 - 1, and 2^64 - 1 itself was refused).
        "u64" | "usize" => Some(i64::MAX as u64),
        _ => None,
    };
    if let Some(max) = max {
        return format!("a whole number from 0 to {max}");
    }
    if expected.starts_with("struct ") || expected == "a map" {
        return "a table of keys (a [section] in the file)".into();
    }
    match expected {
        "a boolean" => "true or false".into(),
        "a string" => "text in quotes".into(),
        "string only" => "one word in quotes".into(),
        "a sequence" => "a list in brackets".into(),
        "i8" | "i16" | "i32" | "i64" => "a whole number".into(),
        "f32" | "f64" | "a floating point" => "a number".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::in_words;

    #[test]
    fn type_errors_name_what_the_key_takes_and_what_was_written() {
        for (serde, words) in [
            ("invalid type: integer `3`, expected a boolean in `tcp.delayed_ack`", "must be true or false, not 3"),
            ("invalid value: integer `-1`, expected u64 in `seed`", "must be a whole number from 0 to 9223372036854775807, not -1"),
            ("invalid type: integer `1`, expected struct TcpSection in `tcp`", "must be a table of keys (a [section] in the file), not 1"),
            ("invalid type: unit variant, expected string only in `flow.kind`", "must be one word in quotes, not that value"),
            ("invalid type: sequence, expected a string in `tcp.variant`", "must be text in quotes, not a list"),
            ("invalid type: string \"abc\", expected u64 in `seed`", "must be a whole number from 0 to 9223372036854775807, not \"abc\""),
            (
                "invalid type: string \"18446744073709551615\", expected u64 in `trace.port_rows`",
                "must be a whole number from 0 to 9223372036854775807, not 18446744073709551615 (more than a TOML integer holds)",
            ),
        ] {
            assert_eq!(in_words(serde), words);
        }
        let huge = format!("invalid type: floating point `{}`, expected a sequence in `capture.hosts`", 1e308);
        assert_eq!(in_words(&huge), "must be a list in brackets, not 1e308");
        // A number in quotes is text, whatever the key's range: not "too large".
        for (serde, words) in [
            (
                "invalid type: string \"4\", expected u32 in `fabric.fes`",
                "must be a whole number from 0 to 4294967295, not the text \"4\" (a number in quotes is text: write it without the quotes)",
            ),
            (
                "invalid type: string \"-4\", expected u64 in `seed`",
                "must be a whole number from 0 to 9223372036854775807, not the text \"-4\" (a number in quotes is text: write it without the quotes)",
            ),
            (
                "invalid type: string \"0.5\", expected f64 in `abr.rif`",
                "must be a number, not the text \"0.5\" (a number in quotes is text: write it without the quotes)",
            ),
        ] {
            assert_eq!(in_words(serde), words);
        }
        // Anything else passes as it is: unknown keys and words list their choices already.
        assert_eq!(in_words("unknown field `bogus`, expected `name`"), "unknown field `bogus`, expected `name`");
    }
}
