//! `--set key=value` overrides, applied to the TOML table before it is
//! deserialised, so an override is checked exactly like the file's own keys.

use super::{err, ScenarioError};

/// `a.b.c=value`: tables by key; arrays of tables by index, by `name`, or
/// (links) by `A-B`. Values are TOML (`5`, `true`, `"x"`) or bare strings.
pub(super) fn apply_override(table: &mut toml::Table, o: &str) -> Result<(), ScenarioError> {
    let Some((path, raw)) = o.split_once('=') else {
        return err(o, "override must be key=value");
    };
    let (path, raw) = (path.trim(), raw.trim());
    let value = match format!("v = {raw}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").unwrap(),
        Err(_) => toml::Value::String(raw.to_string()),
    };
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return err(path, "empty key segment");
    }
    let mut cur = table;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        if last {
            cur.insert(part.to_string(), value);
            return Ok(());
        }
        let next = cur.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cur = match next {
            toml::Value::Table(t) => t,
            toml::Value::Array(items) => {
                let sel = parts[i + 1];
                let by_number = sel.parse::<usize>().ok().filter(|&n| n < items.len());
                let by_name = items.iter().position(|v| {
                    v.get("name").and_then(|n| n.as_str()) == Some(sel)
                        || v.get("ends").and_then(|e| e.as_array()).is_some_and(|e| {
                            let names: Vec<&str> = e.iter().filter_map(|x| x.as_str()).collect();
                            names.join("-") == sel
                        })
                });
                // A name that is another element's number could mean either: refused, never
                // guessed (issue 38, rule 9: with flows named "2" and "1", flow.2 took the first
                // flow, named "2", not the third).
                let ix = match (by_number, by_name) {
                    (Some(n), Some(m)) if n != m => {
                        return err(
                            parts[..i + 2].join("."),
                            format!("could mean {part} number {n} or the {part} named '{sel}' (number {m}): give {part}s names that are not numbers"),
                        )
                    }
                    (Some(n), _) | (None, Some(n)) => n,
                    (None, None) => return err(parts[..i + 2].join("."), format!("no {part} named or numbered '{sel}'")),
                };
                if i + 2 == parts.len() {
                    // `flow.NAME=off` leaves a flow out of the run: the way to run a built-in
                    // with fewer flows, where a start past the run's end is refused (issue 38,
                    // rule 1: such a flow would do nothing).
                    if i == 0 && *part == "flow" && raw == "off" {
                        items.remove(ix);
                        return Ok(());
                    }
                    let hint = if i == 0 && *part == "flow" { " (flow.NAME=off leaves the flow out)" } else { "" };
                    return err(path, format!("cannot replace a whole array element; set one of its keys{hint}"));
                }
                let elem = &mut items[ix];
                // Skip the selector segment.
                let rest = parts[i + 2..].join(".");
                let toml::Value::Table(t) = elem else {
                    return err(path, "not a table");
                };
                return apply_override(t, &format!("{rest}={raw}"));
            }
            _ => return err(parts[..=i].join("."), "is a value, not a table"),
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Limit;
    use crate::scenario::test_support::{check, key_of};

    fn table() -> toml::Table {
        r#"
        a = 1
        [t]
        x = "y"
        [[link]]
        ends = ["A", "X"]
        [[flow]]
        name = "f1"
        "#
        .parse()
        .unwrap()
    }

    fn set(o: &str) -> Result<toml::Table, ScenarioError> {
        let mut t = table();
        apply_override(&mut t, o)?;
        Ok(t)
    }

    #[test]
    fn values_are_toml_or_bare_strings() {
        assert_eq!(set("a=5").unwrap()["a"].as_integer(), Some(5));
        assert_eq!(set("a=true").unwrap()["a"].as_bool(), Some(true));
        assert_eq!(set("a=\"x y\"").unwrap()["a"].as_str(), Some("x y"));
        assert_eq!(set("a=5 parsecs").unwrap()["a"].as_str(), Some("5 parsecs"));
        assert_eq!(set("new.key=1").unwrap()["new"]["key"].as_integer(), Some(1));
    }

    #[test]
    fn array_elements_by_index_name_or_ends() {
        assert_eq!(set("flow.f1.bytes=1MB").unwrap()["flow"][0]["bytes"].as_str(), Some("1MB"));
        assert_eq!(set("flow.0.bytes=1MB").unwrap()["flow"][0]["bytes"].as_str(), Some("1MB"));
        assert_eq!(set("link.A-X.rate=1Mbps").unwrap()["link"][0]["rate"].as_str(), Some("1Mbps"));
        assert_eq!(set("link.X-A.rate=1Mbps").unwrap_err().key, "link.X-A");
        assert_eq!(set("flow.f1=1").unwrap_err().key, "flow.f1");
        assert!(set("flow.f1=1").unwrap_err().problem.contains("flow.NAME=off leaves the flow out"));
        assert_eq!(set("link.A-X=off").unwrap_err().key, "link.A-X");
        assert_eq!(set("a.b=1").unwrap_err().key, "a");
        assert_eq!(set("t..x=1").unwrap_err().key, "t..x");
    }

    #[test]
    fn a_name_that_is_another_elements_number_is_refused_not_guessed() {
        let two_flows = |first: &str, second: &str| -> toml::Table {
            format!("[[flow]]\nname = \"{first}\"\n[[flow]]\nname = \"{second}\"\n").parse().unwrap()
        };
        let mut t = two_flows("1", "x");
        let e = apply_override(&mut t, "flow.1.bytes=1MB").unwrap_err();
        assert_eq!(e.key, "flow.1", "{e}");
        assert!(e.problem.contains("could mean flow number 1 or the flow named '1' (number 0)"), "{e}");
        // Name and number of the same flow, or a name past the numbers: one meaning, taken.
        let mut t = two_flows("x", "1");
        apply_override(&mut t, "flow.1.bytes=1MB").unwrap();
        assert_eq!(t["flow"][1]["bytes"].as_str(), Some("1MB"));
        let mut t = two_flows("x", "7");
        apply_override(&mut t, "flow.7.bytes=1MB").unwrap();
        assert_eq!(t["flow"][1]["bytes"].as_str(), Some("1MB"));
    }

    #[test]
    fn a_flow_set_off_is_left_out() {
        let two: toml::Table = "[[flow]]\nname = \"a\"\n[[flow]]\nname = \"b\"\n".parse().unwrap();
        let mut t = two.clone();
        apply_override(&mut t, "flow.a=off").unwrap();
        assert_eq!(t["flow"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect::<Vec<_>>(), ["b"]);
        // Once left out it is no longer there to set.
        assert_eq!(apply_override(&mut t, "flow.a.start=1s").unwrap_err().key, "flow.a");
        let mut t = two;
        apply_override(&mut t, "flow.1=off").unwrap();
        assert_eq!(t["flow"][0]["name"].as_str(), Some("a"));
        // Every flow left out: the scenario has none to run.
        let e = check(&["flow.f1=off"]).unwrap_err();
        assert!(e.problem.contains("at least one"), "{e}");
    }

    #[test]
    fn override_syntax() {
        assert!(check(&["novalue"]).is_err());
        let m = check(&["switch.buffer=96cells", "flow.f1.bytes=1MB", "duration=2s"]).unwrap();
        assert_eq!(m.ports[1].limit, Limit::Units(96));
        assert_eq!(m.flows[0].bytes, Some(1_000_000));
        assert_eq!(m.duration, 2 * crate::time::PS_PER_S);
    }

    #[test]
    fn zero_or_negative_rate() {
        assert_eq!(key_of(&["link.A-X.rate=0Mbps"]), "link[A-X].rate");
        assert_eq!(key_of(&["link.0.rate=-5Mbps"]), "link[A-X].rate");
    }
}
