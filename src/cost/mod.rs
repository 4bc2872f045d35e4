//! What the tokens of a reply cost, in dollars: a price table kept in the
//! repository (`src/cost/prices.json`: per model, from a date on, with the
//! public source of each price), or one the user gives (`--prices FILE`,
//! the same shape), and the arithmetic.
//!
//! Money is counted exactly, in integers: a rate is micro-dollars per
//! million tokens, a cost is tokens × rate (pico-dollars). Sums do not
//! depend on their order, so totals are the same whatever the thread count.
//! A model the table does not know, a kind of token whose rate it leaves
//! out, a prompt past a threshold whose rates it does not have, fast mode:
//! each makes the reply's cost [`Cost::Unknown`], never a guess.

use std::collections::HashMap;
use std::fmt;
use std::fmt::Write as _;

use jiff::civil::Date;
use serde::Deserialize;
use serde_json::value::RawValue;

/// The table shipped with cctree.
pub const BUNDLED: &str = include_str!("prices.json");

/// A price table that could not be read: what is wrong and where.
#[derive(Debug, thiserror::Error)]
#[error("{origin}: {what}")]
pub struct TableError {
    /// The file (or "the bundled price table").
    pub origin: String,
    pub what: String,
}

/// US dollars per million tokens, in millionths of a dollar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(u64);

impl Rate {
    /// A decimal number of dollars ("0.125", "15", 3.75) read exactly.
    fn parse(text: &str) -> Option<Rate> {
        let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
        if whole.is_empty() && frac.is_empty()
            || !whole.bytes().all(|b| b.is_ascii_digit())
            || !frac.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        // Beyond micro-dollars per million tokens only zeros may follow.
        if frac.len() > 6 && frac[6..].bytes().any(|b| b != b'0') {
            return None;
        }
        let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
        let mut micros = 0u64;
        let mut place = 100_000u64;
        for d in frac.bytes().take(6) {
            micros += u64::from(d - b'0') * place;
            place /= 10;
        }
        whole.checked_mul(1_000_000)?.checked_add(micros).map(Rate)
    }
}

/// `$3`, `$3.75`, `$0.30`, `$0.125`.
impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, micros) = (self.0 / 1_000_000, self.0 % 1_000_000);
        if micros == 0 {
            return write!(f, "${whole}");
        }
        let frac = format!("{micros:06}");
        let frac = frac.trim_end_matches('0');
        write!(f, "${whole}.{frac:0<2}")
    }
}

/// An amount of money, in pico-dollars (10⁻¹² $): tokens × [`Rate`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Money(u128);

/// Kept (in the render cache) as a string of digits: JSON readers may not
/// hold a 128-bit number.
impl serde::Serialize for Money {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Money, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        text.parse().map(Money).map_err(serde::de::Error::custom)
    }
}

impl Money {
    fn of(tokens: u64, rate: Rate) -> Money {
        Money(u128::from(tokens) * u128::from(rate.0))
    }

    pub fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// The sum, `None` past the largest amount (where `+` saturates).
    pub fn checked_add(self, o: Money) -> Option<Money> {
        self.0.checked_add(o.0).map(Money)
    }

    /// The difference, `None` below nothing.
    pub fn checked_sub(self, o: Money) -> Option<Money> {
        self.0.checked_sub(o.0).map(Money)
    }

    /// Whole cents, rounded half up.
    pub fn cents(self) -> u128 {
        (self.0 + 5_000_000_000) / 10_000_000_000
    }
}

impl std::ops::Add for Money {
    type Output = Money;
    fn add(self, o: Money) -> Money {
        Money(self.0.saturating_add(o.0))
    }
}

impl std::ops::AddAssign for Money {
    fn add_assign(&mut self, o: Money) {
        *self = *self + o;
    }
}

/// Dollars as a reader wants them: cents from a dollar on (`$12.34`,
/// `$1,234.50`), two significant digits below (`$0.042`, `$0.0031`), and
/// `<$0.0001` for what rounds to nothing but is not nothing.
impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const DOLLAR: u128 = 1_000_000_000_000;
        if self.0 == 0 {
            return f.write_str("$0");
        }
        if self.0 >= DOLLAR {
            let cents = self.cents();
            let whole = (cents / 100).to_string();
            let mut grouped = String::with_capacity(whole.len() + whole.len() / 3);
            for (i, c) in whole.chars().enumerate() {
                if i > 0 && (whole.len() - i) % 3 == 0 {
                    grouped.push(',');
                }
                grouped.push(c);
            }
            return write!(f, "${grouped}.{:02}", cents % 100);
        }
        // Below a dollar: two significant digits, at most four decimals.
        let mut digits = 2u32;
        while digits < 4 && self.0 < DOLLAR / 10u128.pow(digits - 1) {
            digits += 1;
        }
        let mut unit = DOLLAR / 10u128.pow(digits);
        let mut n = (self.0 + unit / 2) / unit;
        if digits > 2 && n >= 100 {
            // Rounding carried into a third digit (0.09996 → 0.100): one
            // decimal fewer keeps two significant digits (0.10).
            digits -= 1;
            unit *= 10;
            n = (self.0 + unit / 2) / unit;
        }
        if n == 0 {
            return f.write_str("<$0.0001");
        }
        if n >= 10u128.pow(digits) {
            // Rounded up to the next digit (0.0999… → 0.10).
            return write!(
                f,
                "${}.{:0width$}",
                n / 10u128.pow(digits),
                n % 10u128.pow(digits),
                width = digits as usize
            );
        }
        write!(f, "$0.{n:0width$}", width = digits as usize)
    }
}

/// What one API call billed, as cctree's model counts it: fresh input
/// (not read from or written to the cache), output, cache reads, cache
/// writes by lifetime, web searches, and whether it ran in fast mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Billed {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    /// Cache writes kept five minutes (the API's default lifetime: where a
    /// transcript does not split its writes, they are counted here).
    pub cache_write_5m: u64,
    pub cache_write_1h: u64,
    pub web_searches: u64,
    /// Fast mode is billed at a premium the table does not hold.
    pub fast: bool,
}

impl Billed {
    /// The prompt's size, as price thresholds count it: every input
    /// token, read from the cache, written to it or neither.
    pub fn prompt(&self) -> u64 {
        self.input
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write_5m)
            .saturating_add(self.cache_write_1h)
    }

    fn is_empty(&self) -> bool {
        self.prompt() == 0 && self.output == 0 && self.web_searches == 0
    }
}

/// Why a cost is not known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unknown {
    /// The table has no entry for the model.
    Model,
    /// The table's entry leaves out the rate of a kind of token used.
    Rate,
    /// The prompt is past a threshold whose rates the table does not have.
    LongPrompt,
    /// Fast mode.
    Fast,
}

/// A reply's cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cost {
    Known(Money),
    Unknown(Unknown),
}

/// Costs added up: the money known, and how many calls' costs are not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, Deserialize)]
pub struct Total {
    pub known: Money,
    pub unknown: u32,
}

impl Total {
    pub fn add(&mut self, c: Cost) {
        match c {
            Cost::Known(m) => self.known += m,
            Cost::Unknown(_) => self.unknown = self.unknown.saturating_add(1),
        }
    }

    pub fn merge(&mut self, o: Total) {
        self.known += o.known;
        self.unknown = self.unknown.saturating_add(o.unknown);
    }

    /// Whether every cost in it is known.
    pub fn is_complete(&self) -> bool {
        self.unknown == 0
    }
}

/// One set of rates; a rate left out is unknown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Rates {
    input: Option<Rate>,
    output: Option<Rate>,
    cache_write_5m: Option<Rate>,
    cache_write_1h: Option<Rate>,
    cache_read: Option<Rate>,
    web_search_per_1000: Option<Rate>,
}

impl Rates {
    /// `input $3 · output $15 · …`: the rates it has.
    fn listing(&self) -> String {
        [
            ("input", self.input),
            ("output", self.output),
            ("cache write 5m", self.cache_write_5m),
            ("cache write 1h", self.cache_write_1h),
            ("cache read", self.cache_read),
            ("web search (per 1,000)", self.web_search_per_1000),
        ]
        .iter()
        .map(|(name, r)| match r {
            Some(r) => format!("{name} {r}"),
            None => format!("{name} unknown"),
        })
        .collect::<Vec<_>>()
        .join(" · ")
    }

    fn cost(&self, b: &Billed) -> Cost {
        let mut sum = Money::default();
        for (tokens, rate) in [
            (b.input, self.input),
            (b.output, self.output),
            (b.cache_write_5m, self.cache_write_5m),
            (b.cache_write_1h, self.cache_write_1h),
            (b.cache_read, self.cache_read),
        ] {
            if tokens == 0 {
                continue;
            }
            match rate {
                Some(r) => sum += Money::of(tokens, r),
                None => return Cost::Unknown(Unknown::Rate),
            }
        }
        if b.web_searches > 0 {
            // Per thousand searches: searches × rate × 1000 (a rate is per
            // million of its unit).
            match self.web_search_per_1000 {
                Some(r) => sum += Money::of(b.web_searches.saturating_mul(1000), r),
                None => return Cost::Unknown(Unknown::Rate),
            }
        }
        Cost::Known(sum)
    }
}

#[derive(Debug, Clone)]
struct Period {
    /// The first day (UTC) these rates apply; `None`: since ever.
    from: Option<Date>,
    rates: Rates,
    /// A prompt over `over` tokens is billed, every token of it, at these.
    long_prompt: Option<(u64, Rates)>,
}

/// One model's prices.
#[derive(Debug, Clone)]
pub struct ModelPrices {
    pub name: String,
    pub ids: Vec<String>,
    pub source: String,
    periods: Vec<Period>,
}

/// The price table.
#[derive(Debug)]
pub struct Prices {
    /// The day the table was last checked against its sources.
    pub checked: Option<Date>,
    pub models: Vec<ModelPrices>,
    by_id: HashMap<String, usize>,
    /// The model of each id met, as written ([`normalize`] once per id: a
    /// render prices every call of a project, a handful of distinct ids).
    met: std::sync::RwLock<HashMap<Box<str>, Option<usize>>>,
}

impl Clone for Prices {
    fn clone(&self) -> Prices {
        Prices {
            checked: self.checked,
            models: self.models.clone(),
            by_id: self.by_id.clone(),
            met: std::sync::RwLock::default(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    #[serde(default)]
    about: Option<String>,
    #[serde(default)]
    checked: Option<String>,
    models: Vec<RawModel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModel {
    name: String,
    ids: Vec<String>,
    source: String,
    prices: Vec<RawPeriod>,
}

/// A set of prices as written: the rates, and where it applies. A
/// `long_prompt` is the same shape with `over` (and neither `from` nor a
/// `long_prompt` of its own).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPeriod {
    from: Option<String>,
    over: Option<u64>,
    input: Option<Box<RawValue>>,
    output: Option<Box<RawValue>>,
    cache_write_5m: Option<Box<RawValue>>,
    cache_write_1h: Option<Box<RawValue>>,
    cache_read: Option<Box<RawValue>>,
    web_search_per_1000: Option<Box<RawValue>>,
    long_prompt: Option<Box<RawPeriod>>,
}

impl RawPeriod {
    /// The rates, each read exactly from its decimal text (a string
    /// "3.75" or a number 3.75).
    fn rates(&self) -> Result<Rates, String> {
        let one = |name: &str, v: &Option<Box<RawValue>>| -> Result<Option<Rate>, String> {
            let Some(v) = v else { return Ok(None) };
            let raw = v.get();
            let text = raw.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(raw);
            Rate::parse(text)
                .map(Some)
                .ok_or_else(|| format!("`{name}`: {raw} is not a price in dollars (a decimal number such as \"3.75\")"))
        };
        Ok(Rates {
            input: one("input", &self.input)?,
            output: one("output", &self.output)?,
            cache_write_5m: one("cache_write_5m", &self.cache_write_5m)?,
            cache_write_1h: one("cache_write_1h", &self.cache_write_1h)?,
            cache_read: one("cache_read", &self.cache_read)?,
            web_search_per_1000: one("web_search_per_1000", &self.web_search_per_1000)?,
        })
    }
}

impl Prices {
    /// The bundled table.
    pub fn bundled() -> Prices {
        Prices::parse(BUNDLED, "the bundled price table").expect("the bundled price table is checked by its tests")
    }

    /// Reads a table; `origin` names it in errors (a path, or what it is).
    pub fn parse(text: &str, origin: &str) -> Result<Prices, TableError> {
        let err = |what: String| TableError { origin: origin.to_string(), what };
        let raw: RawTable = serde_json::from_str(text).map_err(|e| {
            err(format!("{e} (expected the shape `cctree prices --json` prints: {{\"models\": [{{\"name\", \"ids\", \"source\", \"prices\": [{{\"from\"?, \"input\", \"output\", …}}]}}]}})"))
        })?;
        let _ = raw.about;
        let checked = match raw.checked.as_deref() {
            None => None,
            Some(d) => {
                Some(d.parse::<Date>().map_err(|e| err(format!("`checked`: {d:?} is not a date (YYYY-MM-DD): {e}")))?)
            }
        };
        let mut models = Vec::with_capacity(raw.models.len());
        let mut by_id = HashMap::new();
        for (i, m) in raw.models.into_iter().enumerate() {
            let at = |what: String| err(format!("model {} ({:?}): {what}", i + 1, m.name));
            if m.ids.is_empty() {
                return Err(at("no `ids`: name the model ids it prices".into()));
            }
            if m.prices.is_empty() {
                return Err(at("no `prices`".into()));
            }
            let mut periods = Vec::with_capacity(m.prices.len());
            for p in &m.prices {
                let from = match p.from.as_deref() {
                    None => None,
                    Some(d) => Some(
                        d.parse::<Date>().map_err(|e| at(format!("`from`: {d:?} is not a date (YYYY-MM-DD): {e}")))?,
                    ),
                };
                if p.over.is_some() {
                    return Err(at("`over` belongs in a `long_prompt`".into()));
                }
                let rates = p.rates().map_err(&at)?;
                let long_prompt = match &p.long_prompt {
                    None => None,
                    Some(l) if l.from.is_some() || l.long_prompt.is_some() => {
                        return Err(at(
                            "a `long_prompt` has `over` and rates, no `from` or `long_prompt` of its own".into()
                        ));
                    }
                    Some(l) => {
                        let over = l.over.ok_or_else(|| {
                            at("a `long_prompt` needs `over`: the prompt size past which its rates apply".into())
                        })?;
                        Some((over, l.rates().map_err(&at)?))
                    }
                };
                periods.push(Period { from, rates, long_prompt });
            }
            // Dated periods in order, the undated one (at most one) first.
            periods.sort_by_key(|p| p.from);
            if periods.windows(2).any(|w| w[0].from == w[1].from) {
                return Err(at("two prices from the same date".into()));
            }
            for id in &m.ids {
                let key = normalize(id);
                if key != id.to_ascii_lowercase() {
                    return Err(at(format!("id {id:?} is not a model's base id: write {key:?}")));
                }
                if by_id.insert(key, i).is_some() {
                    return Err(at(format!("id {id:?} is priced twice")));
                }
            }
            models.push(ModelPrices { name: m.name, ids: m.ids, source: m.source, periods });
        }
        Ok(Prices { checked, models, by_id, met: std::sync::RwLock::default() })
    }

    /// The table as `cctree prices` prints it: per model its ids, its rates
    /// in dollars per million tokens from each date, and its source.
    pub fn listing(&self, origin: &str) -> String {
        let mut out = format!("Prices in US dollars per million tokens (web searches: per 1,000), from {origin}");
        if let Some(d) = self.checked {
            let _ = write!(out, ", checked {d}");
        }
        out.push_str(".\nA model not listed, or a rate marked unknown, is priced \"price unknown\", never guessed.\n");
        for m in &self.models {
            let _ = write!(out, "\n{}\n  ids: {}\n", m.name, m.ids.join(", "));
            for (i, p) in m.periods.iter().enumerate() {
                let next = m.periods.get(i + 1).and_then(|n| n.from);
                let from = match (p.from, next) {
                    (Some(d), _) => format!("from {d}: "),
                    (None, Some(n)) => format!("before {n}: "),
                    (None, None) => String::new(),
                };
                let _ = writeln!(out, "  {from}{}", p.rates.listing());
                if let Some((over, long)) = &p.long_prompt {
                    let _ = writeln!(out, "    a prompt over {over} tokens: {}", long.listing());
                }
            }
            let _ = writeln!(out, "  source: {}", m.source);
        }
        out
    }

    /// The entry pricing `model` (as a transcript names it), if any.
    pub fn model(&self, model: &str) -> Option<&ModelPrices> {
        let known = self.met.read().ok().and_then(|m| m.get(model).copied());
        let i = match known {
            Some(i) => i,
            None => {
                let i = self.by_id.get(&normalize(model)).copied();
                if let Ok(mut m) = self.met.write() {
                    m.insert(model.into(), i);
                }
                i
            }
        };
        i.map(|i| &self.models[i])
    }

    /// What `b`, a call to `model` at `at_ms` (milliseconds since the
    /// epoch, UTC), cost. A call that used nothing cost nothing, whatever
    /// the model (the client's own `<synthetic>` replies).
    pub fn cost(&self, model: &str, at_ms: i64, b: &Billed) -> Cost {
        if b.is_empty() {
            return Cost::Known(Money::default());
        }
        let Some(m) = self.model(model) else { return Cost::Unknown(Unknown::Model) };
        if b.fast {
            return Cost::Unknown(Unknown::Fast);
        }
        let day = jiff::Timestamp::from_millisecond(at_ms).ok().map(|t| jiff::tz::TimeZone::UTC.to_datetime(t).date());
        // The last period that began on or before the day; a call of an
        // unknown time is priced at the newest rates.
        let period = match day {
            Some(day) => m.periods.iter().rev().find(|p| p.from.is_none_or(|f| f <= day)).unwrap_or(&m.periods[0]),
            None => m.periods.last().expect("a model has prices"),
        };
        match &period.long_prompt {
            Some((over, long)) if b.prompt() > *over => match long.cost(b) {
                Cost::Unknown(Unknown::Rate) => Cost::Unknown(Unknown::LongPrompt),
                c => c,
            },
            _ => period.rates.cost(b),
        }
    }
}

/// The price table pages are priced with, as the render options carry it:
/// shared, and told apart from another by a hash of its text (which keys
/// the render cache: a new table re-renders every page).
#[derive(Clone)]
pub struct PriceTable {
    pub prices: std::sync::Arc<Prices>,
    /// Where it was read from: a path, or the bundled table.
    pub origin: String,
    /// The table's text, as read.
    pub text: std::sync::Arc<str>,
    hash: String,
}

impl PriceTable {
    /// The table shipped with cctree.
    pub fn bundled() -> PriceTable {
        PriceTable::of(Prices::bundled(), "the bundled price table", BUNDLED)
    }

    /// `--prices FILE`: the table in `path`, replacing the bundled one.
    /// Errors name the file and what is wrong with it.
    pub fn load(path: &std::path::Path) -> Result<PriceTable, TableError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| TableError {
            origin: origin.clone(),
            what: format!(
                "cannot read the price table: {e} (give --prices a JSON file shaped as `cctree prices --json` prints)"
            ),
        })?;
        let prices = Prices::parse(&text, &origin)?;
        Ok(PriceTable::of(prices, &origin, &text))
    }

    fn of(prices: Prices, origin: &str, text: &str) -> PriceTable {
        let hash = blake3::hash(text.as_bytes()).to_hex()[..16].to_string();
        PriceTable { prices: std::sync::Arc::new(prices), origin: origin.to_string(), text: text.into(), hash }
    }
}

impl Default for PriceTable {
    fn default() -> PriceTable {
        PriceTable::bundled()
    }
}

impl fmt::Debug for PriceTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PriceTable({})", self.hash)
    }
}

impl PartialEq for PriceTable {
    fn eq(&self, o: &PriceTable) -> bool {
        self.hash == o.hash
    }
}

impl Eq for PriceTable {}

/// A model id as the table keys it: lower case, without a provider's
/// prefix (`us.anthropic.`, `anthropic/`), a context suffix (`[1m]`), a
/// version or region tail (`@20250929`, `-v1:0`) or a snapshot date
/// (`-20250929`, `-2026-08-05`).
pub fn normalize(model: &str) -> String {
    let mut m = model.trim().to_ascii_lowercase();
    if let Some(at) = m.find("claude-") {
        m.drain(..at);
    } else if let Some(slash) = m.rfind('/') {
        m.drain(..=slash);
    }
    if let Some(at) = m.find('[') {
        m.truncate(at);
    }
    if let Some(at) = m.find('@') {
        m.truncate(at);
    }
    // `-v1:0`, `-v2`
    if let Some(at) = m.rfind("-v")
        && m[at + 2..].bytes().all(|b| b.is_ascii_digit() || b == b':')
        && m.len() > at + 2
    {
        m.truncate(at);
    }
    // `-20250929`
    if m.len() > 9 && m.as_bytes()[m.len() - 9] == b'-' && m[m.len() - 8..].bytes().all(|b| b.is_ascii_digit()) {
        m.truncate(m.len() - 9);
    }
    // `-2026-08-05`
    let b = m.as_bytes();
    if m.len() > 11
        && b[m.len() - 11] == b'-'
        && b[m.len() - 6] == b'-'
        && b[m.len() - 3] == b'-'
        && m[m.len() - 10..m.len() - 6].bytes().all(|c| c.is_ascii_digit())
    {
        m.truncate(m.len() - 11);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(day: &str) -> i64 {
        format!("{day}T12:00:00Z").parse::<jiff::Timestamp>().unwrap().as_millisecond()
    }

    fn known(c: Cost) -> Money {
        match c {
            Cost::Known(m) => m,
            Cost::Unknown(u) => panic!("unknown: {u:?}"),
        }
    }

    #[test]
    fn the_bundled_table_reads_and_every_id_is_found() {
        let p = Prices::bundled();
        assert!(p.models.len() >= 10);
        for m in &p.models {
            assert!(m.source.starts_with("https://"), "{}: {}", m.name, m.source);
            for id in &m.ids {
                assert_eq!(p.model(id).map(|e| &e.name), Some(&m.name));
            }
        }
    }

    /// Worked by hand: Sonnet 4.5 at $3 input, $15 output, $3.75 and $6
    /// cache writes (5 minutes, 1 hour), $0.30 cache reads per million.
    #[test]
    fn a_reply_costs_what_its_tokens_cost_cache_reads_and_writes_included() {
        let p = Prices::bundled();
        let b = Billed {
            input: 1_000,
            output: 500,
            cache_read: 20_000,
            cache_write_5m: 3_000,
            cache_write_1h: 1_000,
            ..Billed::default()
        };
        // 1000×3 + 500×15 + 20000×0.30 + 3000×3.75 + 1000×6 = 33,750 µ$.
        let c = known(p.cost("claude-sonnet-4-5-20250929", at("2026-01-02"), &b));
        assert_eq!(c, Money(33_750 * 1_000_000));
        assert_eq!(c.to_string(), "$0.034");
        // The same ids as other providers and clients write them.
        for id in [
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "claude-sonnet-4-5@20250929",
            "claude-sonnet-4-5[1m]",
            "Claude-Sonnet-4-5",
        ] {
            assert_eq!(known(p.cost(id, at("2026-01-02"), &b)), c, "{id}");
        }
        // Web searches: $10 per thousand.
        let s = Billed { web_searches: 3, ..Billed::default() };
        assert_eq!(known(p.cost("claude-opus-4-7", at("2026-06-01"), &s)).to_string(), "$0.030");
    }

    #[test]
    fn prices_change_on_their_date_and_long_prompts_take_their_rates() {
        let p = Prices::bundled();
        let reads = Billed { cache_read: 1_000_000, ..Billed::default() };
        assert_eq!(known(p.cost("claude-sonnet-5-5", at("2026-10-06"), &reads)).to_string(), "$0.20");
        assert_eq!(known(p.cost("claude-sonnet-5-5", at("2026-10-07"), &reads)).to_string(), "$0.10");
        // Haiku 5.5: a prompt of 100,000 tokens is short, one more is long,
        // and every token of a long one (output too) is at the long rates.
        let short = Billed { input: 100_000, output: 1_000, ..Billed::default() };
        let long = Billed { input: 60_001, cache_read: 40_000, output: 1_000, ..Billed::default() };
        // 100000×0.10 + 1000×0.50 = 10,500 µ$; 60001×0.50 + 40000×0.05 + 1000×2.50 = 34,500.5 µ$.
        assert_eq!(known(p.cost("claude-haiku-5-5", at("2026-11-01"), &short)), Money(10_500_000_000));
        assert_eq!(known(p.cost("claude-haiku-5-5", at("2026-11-01"), &long)), Money(34_500_500_000));
        // GPT-5.5 past 272,000 tokens: rates not in the table.
        let big = Billed { input: 300_000, ..Billed::default() };
        assert_eq!(p.cost("gpt-5.5", at("2026-11-01"), &big), Cost::Unknown(Unknown::LongPrompt));
    }

    #[test]
    fn what_the_table_does_not_price_is_unknown_never_guessed() {
        let p = Prices::bundled();
        let b = Billed { input: 10, output: 5, ..Billed::default() };
        assert_eq!(p.cost("gemini-3.8-flash", 0, &b), Cost::Unknown(Unknown::Model));
        assert_eq!(p.cost("haiku", 0, &b), Cost::Unknown(Unknown::Model));
        // GPT-5 has no cache-write rate.
        let w = Billed { cache_write_5m: 10, ..Billed::default() };
        assert_eq!(p.cost("gpt-5", 0, &w), Cost::Unknown(Unknown::Rate));
        let fast = Billed { fast: true, ..b };
        assert_eq!(p.cost("claude-opus-4-6", 0, &fast), Cost::Unknown(Unknown::Fast));
        // A call that used nothing cost nothing, even of an unknown model.
        assert_eq!(p.cost("<synthetic>", 0, &Billed::default()), Cost::Known(Money::default()));
        // Totals keep the known money and count the rest.
        let mut t = Total::default();
        t.add(p.cost("claude-haiku-4-5-20251001", 0, &b));
        t.add(p.cost("gemini-3.8-flash", 0, &b));
        assert_eq!(t, Total { known: Money(35 * 1_000_000), unknown: 1 });
        assert!(!t.is_complete());
    }

    #[test]
    fn a_user_table_replaces_the_bundled_one_and_its_mistakes_are_named() {
        let t = r#"{"models": [{"name": "Local", "ids": ["my-model"], "source": "https://example.com", "prices": [{"input": 1.5, "output": "2"}]}]}"#;
        let p = Prices::parse(t, "prices.json").unwrap();
        let b = Billed { input: 1_000_000, output: 1_000_000, ..Billed::default() };
        assert_eq!(known(p.cost("my-model", 0, &b)).to_string(), "$3.50");
        assert_eq!(p.cost("claude-opus-4-7", 0, &b), Cost::Unknown(Unknown::Model));
        for (bad, says) in [
            (
                r#"{"models": [{"name": "X", "ids": ["x"], "source": "s", "prices": [{"input": "3,75"}]}]}"#,
                "`input`: \"3,75\"",
            ),
            (r#"{"models": [{"name": "X", "ids": ["x"], "source": "s", "prices": [{"input": -1}]}]}"#, "`input`: -1"),
            (
                r#"{"models": [{"name": "X", "ids": ["x"], "source": "s", "prices": [{"long_prompt": {"input": "1"}}]}]}"#,
                "needs `over`",
            ),
            (
                r#"{"models": [{"name": "X", "ids": ["x-20250101"], "source": "s", "prices": [{"input": "1"}]}]}"#,
                "write \"x\"",
            ),
            (
                r#"{"models": [{"name": "X", "ids": ["x"], "source": "s", "prices": [{"from": "2026-13-01"}]}]}"#,
                "`from`",
            ),
            (
                r#"{"models": [{"name": "X", "ids": ["x"], "source": "s", "prices": [{"input": "1", "outptu": "2"}]}]}"#,
                "outptu",
            ),
            (
                r#"{"models": [{"name": "X", "ids": ["x"], "source": "s", "prices": [{}]}, {"name": "Y", "ids": ["x"], "source": "s", "prices": [{}]}]}"#,
                "priced twice",
            ),
        ] {
            let e = Prices::parse(bad, "my-prices.json").unwrap_err().to_string();
            assert!(e.starts_with("my-prices.json: ") && e.contains(says), "{e}");
        }
    }

    #[test]
    fn rates_are_read_exactly() {
        assert_eq!(Rate::parse("0.125"), Some(Rate(125_000)));
        assert_eq!(Rate::parse("15"), Some(Rate(15_000_000)));
        assert_eq!(Rate::parse(".5"), Some(Rate(500_000)));
        assert_eq!(Rate::parse("0.0000001"), None);
        assert_eq!(Rate::parse("0.1000000"), Some(Rate(100_000)));
        for bad in ["", ".", "-1", "1e3", "1.2.3", "99999999999999999999"] {
            assert_eq!(Rate::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn money_reads_as_dollars() {
        let d = |micro: u128| Money(micro * 1_000_000).to_string();
        assert_eq!(Money::default().to_string(), "$0");
        assert_eq!(d(1_234_500_000), "$1,234.50");
        assert_eq!(d(12_345_678), "$12.35");
        assert_eq!(d(1_000_000), "$1.00");
        assert_eq!(d(999_999), "$1.00");
        assert_eq!(d(42_000), "$0.042");
        assert_eq!(d(3_149), "$0.0031");
        assert_eq!(d(99_960), "$0.10");
        assert_eq!(d(40), "<$0.0001");
    }

    #[test]
    fn ids_are_normalized_to_their_base() {
        for (id, base) in [
            ("claude-opus-4-20250514", "claude-opus-4"),
            ("claude-3-5-sonnet-20241022", "claude-3-5-sonnet"),
            ("anthropic.claude-3-haiku-20240307-v1:0", "claude-3-haiku"),
            ("claude-opus-4-6[1m]", "claude-opus-4-6"),
            ("openai/gpt-5.5", "gpt-5.5"),
            ("gpt-5-2025-08-07", "gpt-5"),
            ("gpt-5-codex", "gpt-5-codex"),
            ("<synthetic>", "<synthetic>"),
        ] {
            assert_eq!(normalize(id), base, "{id}");
        }
    }
}
