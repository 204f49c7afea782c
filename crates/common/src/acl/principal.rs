//! From an authenticated name (a client certificate's common name) to a user name: rules as
//! Kafka's `ssl.principal.mapping.rules`, each `RULE:pattern/replacement/` with an optional
//! `L` or `U` after it (lower or upper case the result), or `DEFAULT` (the name itself). The
//! first rule whose pattern matches the whole name gives the user; a name no rule maps is
//! refused.

use regex::Regex;

/// One mapping rule.
#[derive(Debug, Clone)]
enum Rule {
    Default,
    Replace {
        pattern: Regex,
        replacement: String,
        case: Case,
    },
}

#[derive(Debug, Clone, Copy)]
enum Case {
    Keep,
    Lower,
    Upper,
}

/// The rules in force, in order; none given: `DEFAULT`.
#[derive(Debug, Clone)]
pub struct PrincipalRules {
    rules: Vec<Rule>,
}

impl Default for PrincipalRules {
    fn default() -> Self {
        PrincipalRules {
            rules: vec![Rule::Default],
        }
    }
}

impl PrincipalRules {
    /// Parses rules, one per string (`RULE:^(.*)@example\.com$/$1/L`, `DEFAULT`). An error
    /// names the rule and what is wrong with it.
    pub fn parse<S: AsRef<str>>(rules: &[S]) -> Result<PrincipalRules, String> {
        if rules.is_empty() {
            return Ok(PrincipalRules::default());
        }
        let rules = rules
            .iter()
            .map(|r| parse_rule(r.as_ref().trim()))
            .collect::<Result<_, _>>()?;
        Ok(PrincipalRules { rules })
    }

    /// The user `name` maps to, or None when no rule maps it (or a rule maps it to nothing).
    pub fn map(&self, name: &str) -> Option<String> {
        for rule in &self.rules {
            match rule {
                Rule::Default => return Some(name.to_owned()),
                Rule::Replace {
                    pattern,
                    replacement,
                    case,
                } => {
                    let Some(caps) = pattern.captures(name) else {
                        continue;
                    };
                    // The pattern must match the whole name, as Java's `matches`.
                    if caps.get(0).is_none_or(|m| m.len() != name.len()) {
                        continue;
                    }
                    let mut user = String::new();
                    caps.expand(replacement, &mut user);
                    let user = match case {
                        Case::Keep => user,
                        Case::Lower => user.to_lowercase(),
                        Case::Upper => user.to_uppercase(),
                    };
                    return (!user.is_empty()).then_some(user);
                }
            }
        }
        None
    }
}

fn parse_rule(text: &str) -> Result<Rule, String> {
    if text == "DEFAULT" {
        return Ok(Rule::Default);
    }
    let bad = |why: &str| format!("bad principal rule {text:?}: {why}");
    let body = text
        .strip_prefix("RULE:")
        .ok_or_else(|| bad("expected DEFAULT or RULE:pattern/replacement/"))?;
    let (case, body) = match body.as_bytes().last() {
        Some(b'L') => (Case::Lower, &body[..body.len() - 1]),
        Some(b'U') => (Case::Upper, &body[..body.len() - 1]),
        _ => (Case::Keep, body),
    };
    let body = body
        .strip_suffix('/')
        .ok_or_else(|| bad("the replacement must end with '/'"))?;
    // The pattern may hold escaped slashes; the last unescaped one ends it.
    let split = last_unescaped_slash(body).ok_or_else(|| bad("no '/' after the pattern"))?;
    let (pattern, replacement) = (&body[..split], &body[split + 1..]);
    let pattern = Regex::new(&pattern.replace("\\/", "/")).map_err(|e| bad(&e.to_string()))?;
    Ok(Rule::Replace {
        pattern,
        replacement: replacement.to_owned(),
        case,
    })
}

fn last_unescaped_slash(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    (0..bytes.len())
        .rev()
        .find(|&i| bytes[i] == b'/' && (i == 0 || bytes[i - 1] != b'\\'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_map_names_in_order() {
        let rules = PrincipalRules::parse(&[
            r"RULE:^svc-(.*)$/$1/U",
            r"RULE:^(.*)@example\.com$/$1/L",
            "DEFAULT",
        ])
        .unwrap();
        assert_eq!(rules.map("svc-etl").as_deref(), Some("ETL"));
        assert_eq!(rules.map("Alice@example.com").as_deref(), Some("alice"));
        assert_eq!(rules.map("bob").as_deref(), Some("bob"));
        assert_eq!(PrincipalRules::default().map("x y").as_deref(), Some("x y"));
    }

    #[test]
    fn a_name_no_rule_maps_is_refused() {
        let rules = PrincipalRules::parse(&[r"RULE:^(.*)@example\.com$/$1/"]).unwrap();
        assert_eq!(rules.map("mallory@evil.com"), None);
        // A partial match is no match.
        assert_eq!(rules.map("x@example.com.evil"), None);
        let empty = PrincipalRules::parse(&[r"RULE:^.*$//"]).unwrap();
        assert_eq!(empty.map("anyone"), None);
    }

    #[test]
    fn bad_rules_are_named() {
        for bad in ["RULE:abc", "RULE:(/x/", "nonsense", "RULE:a/b"] {
            let e = PrincipalRules::parse(&[bad]).unwrap_err();
            assert!(e.contains(bad), "{e}");
        }
        let slash = PrincipalRules::parse(&[r"RULE:^(.*)\/ops$/$1/"]).unwrap();
        assert_eq!(slash.map("eve/ops").as_deref(), Some("eve"));
    }
}
