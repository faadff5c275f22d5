//! Byte sizes and durations as they appear in workload files and flags.
//!
//! A byte size is either a JSON integer or a string with a unit. Binary units
//! (`KiB`, `MiB`, `GiB`, `TiB`) are powers of 1024, decimal units (`KB`, `MB`,
//! `GB`, `TB`) powers of 1000, as in `parse-size`'s defaults. Fractions are
//! allowed (`"1.5GiB"`) and rounded down to whole bytes.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::time::Duration;

/// A number of bytes, written in JSON as an integer or a string with a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bytes(pub u64);

impl Bytes {
    /// Parses `"64KiB"`, `"1.5GiB"`, `"100MB"` or a plain integer.
    pub fn parse(s: &str) -> Result<Bytes, String> {
        parse_size::parse_size(s.trim())
            .map(Bytes)
            .map_err(|e| format!("cannot parse byte size {s:?}: {e} (try e.g. \"64KiB\", \"1.5GiB\", \"100MB\" or an integer)"))
    }

    /// The value in bytes.
    pub fn get(self) -> u64 {
        self.0
    }
}

impl std::str::FromStr for Bytes {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Bytes::parse(s)
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&human_bytes(self.0 as f64))
    }
}

/// Formats a byte count with a binary unit, e.g. `1.50 GiB`; exact multiples
/// print without decimals (`64 KiB`).
pub fn human_bytes(b: f64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b;
    let mut i = 0;
    while v.abs() >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[i])
    } else {
        format!("{v:.2} {}", UNITS[i])
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a byte count: an integer or a string such as \"64KiB\"")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Bytes, E> {
                u64::try_from(v)
                    .map(Bytes)
                    .map_err(|_| E::custom(format!("byte size must not be negative, got {v}")))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Bytes, E> {
                if v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v < u64::MAX as f64 {
                    Ok(Bytes(v as u64))
                } else {
                    Err(E::custom(format!(
                        "byte size must be a whole, non-negative number below 2^64, got {}",
                        shown(v)
                    )))
                }
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Bytes, E> {
                Bytes::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

impl schemars::JsonSchema for Bytes {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Bytes".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A byte count: an integer, or a string with a unit (\"64KiB\", \"1.5GiB\", \"100MB\"). Written by willy as an integer.",
            "type": ["integer", "string"]
        })
    }
}

/// A number as a one-line error shows it: in full from 1e-6 to 1e15, in
/// scientific notation beyond (`1e300` or `-1e-300`, not three hundred
/// digits).
pub(crate) fn shown(v: f64) -> String {
    let a = v.abs();
    if v.is_finite() && v != 0.0 && !(1e-6..1e15).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// A think time, written in JSON as a number of seconds or a string such as
/// `"500us"` or `"2ms"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Think(pub Duration);

impl Think {
    /// Parses `"500us"`, `"2ms"`, `"0"` or a number of seconds (`"0.001"`).
    pub fn parse(s: &str) -> Result<Think, String> {
        let s = s.trim();
        if let Ok(secs) = s.parse::<f64>() {
            return Think::from_secs(secs);
        }
        humantime::parse_duration(s).map(Think).map_err(|e| {
            format!("cannot parse duration {s:?}: {e} (try e.g. \"500us\" or \"2ms\")")
        })
    }

    fn from_secs(secs: f64) -> Result<Think, String> {
        if secs.is_finite() && (0.0..=3600.0).contains(&secs) {
            Ok(Think(Duration::from_secs_f64(secs)))
        } else {
            Err(format!(
                "duration must be between 0 and 3600 seconds, got {}",
                shown(secs)
            ))
        }
    }
}

impl std::str::FromStr for Think {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Think::parse(s)
    }
}

impl Serialize for Think {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0.as_secs_f64())
    }
}

impl<'de> Deserialize<'de> for Think {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Think;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration: seconds as a number, or a string such as \"500us\"")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Think, E> {
                Think::from_secs(v as f64).map_err(E::custom)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Think, E> {
                Think::from_secs(v as f64).map_err(E::custom)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Think, E> {
                Think::from_secs(v).map_err(E::custom)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Think, E> {
                Think::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

impl schemars::JsonSchema for Think {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Think".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A think time: seconds as a number, or a string such as \"500us\" or \"2ms\". Written by willy as seconds.",
            "type": ["number", "string"]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_binary_decimal_and_plain() {
        assert_eq!(Bytes::parse("64KiB").unwrap().0, 65536);
        assert_eq!(Bytes::parse("1.5GiB").unwrap().0, 3 << 29);
        assert_eq!(Bytes::parse("100MB").unwrap().0, 100_000_000);
        assert_eq!(Bytes::parse("4096").unwrap().0, 4096);
        assert!(Bytes::parse("12 parsecs").is_err());
        assert!(Bytes::parse("").is_err());
    }

    #[test]
    fn json_accepts_integers_and_strings_only() {
        let b: Bytes = serde_json::from_str("\"16KiB\"").unwrap();
        assert_eq!(b.0, 16384);
        let b: Bytes = serde_json::from_str("8192").unwrap();
        assert_eq!(b.0, 8192);
        assert!(serde_json::from_str::<Bytes>("-1").is_err());
        assert!(serde_json::from_str::<Bytes>("1.5").is_err());
        assert!(serde_json::from_str::<Bytes>("\"4 furlongs\"").is_err());
        // A huge number is named short, not in three hundred digits.
        let e = serde_json::from_str::<Bytes>("1e300")
            .unwrap_err()
            .to_string();
        assert!(e.contains("got 1e300"), "{e}");
        let e = serde_json::from_str::<Bytes>("2.5")
            .unwrap_err()
            .to_string();
        assert!(e.contains("got 2.5"), "{e}");
    }

    #[test]
    fn think_parses() {
        assert_eq!(Think::parse("2ms").unwrap().0, Duration::from_millis(2));
        assert_eq!(Think::parse("0.5").unwrap().0, Duration::from_millis(500));
        assert!(Think::parse("-1").is_err());
        assert!(Think::parse("soon").is_err());
        let e = Think::parse("1e300").unwrap_err();
        assert!(e.ends_with("got 1e300"), "{e}");
        let e = Think::parse("-1e-300").unwrap_err();
        assert!(e.ends_with("got -1e-300"), "{e}");
        let e = Think::parse("-0.5").unwrap_err();
        assert!(e.ends_with("got -0.5"), "{e}");
    }

    #[test]
    fn human_bytes_formats() {
        assert_eq!(human_bytes(65536.0), "64 KiB");
        assert_eq!(human_bytes(1.5 * 1024.0 * 1024.0 * 1024.0), "1.50 GiB");
        assert_eq!(human_bytes(100.0), "100 B");
    }
}
