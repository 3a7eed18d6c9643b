//! The one list of games ([`game_list!`](crate::game_list)): a game joins
//! the program by its folder and one entry here. Everything that names
//! games follows from the list: [`GameKind`] and its names (a config's
//! `game` key, every `--game` option and its `--help`, files' game
//! fields), [`with_game!`](crate::with_game), the one place a game's name
//! becomes its type, and through them every front end (the CLI, the
//! engine protocol, the web page, the Python package's classes).
//!
//! A game's identity in files and configs is a [`GameId`]: the list's
//! games have theirs (`GameKind::Italian.id()`), and a game another crate
//! implements names its own; [`GameId::kind`] is the list's game of an id,
//! where a front end dispatches on it.
//!
//! Each game's module is public beside the others (`game::damone`,
//! `game::italian`, `game::dameo`); a downstream crate that glob-imports
//! `damone::game::*` brings the module `damone` into scope, and names the
//! crate `::damone` there.
//!
//! An entry is the `GameKind` variant, the game's name and title, its position type
//! (implementing [`GamePosition`](super::GamePosition) and the traits of
//! the layers above: [`Board`](super::Board),
//! [`Baseline`](super::Baseline)) and a line of documentation.

/// Call the macro `$callback` (a macro in scope where `game_list!` is
/// called, or a path to one) with `{ $args }` and then the list of games, one
/// `Variant "name" "Title" Type, "doc",` entry each, in display order (the first
/// is the default game).
///
/// ```
/// macro_rules! count_games {
///     ({} $($variant:ident $name:literal $title:literal $ty:ty, $doc:literal,)*) => { [$($name),*].len() };
/// }
/// assert_eq!(damone::game_list!(count_games {}), damone::game::GAME_NAMES.len());
/// ```
#[macro_export]
macro_rules! game_list {
    (@exported $callback:ident { $($args:tt)* }) => {
        $crate::game_list! { @list $crate::$callback { $($args)* } }
    };
    ($($callback:ident)::+ { $($args:tt)* }) => {
        $crate::game_list! { @list $($callback)::+ { $($args)* } }
    };
    (@list $($callback:tt)::+ { $($args:tt)* }) => {
        $($callback)::+! { { $($args)* }
            Damone "damone" "Damone" $crate::game::damone::Position,
                "Damone, the three-rank variant (docs/rules.md).",
            Italian "italian" "Italian draughts" $crate::game::italian::Position,
                "Italian draughts as the Italian federation plays it (docs/rules-italian.md).",
            Dameo "dameo" "Dameo" $crate::game::dameo::Position,
                "Dameo, Christian Freeling's game on all 64 cells (docs/rules-dameo.md).",
        }
    };
}

/// Run `$body` with `$P` bound to the position type of the game `$kind`:
/// the one place a game's name becomes its type, so that the code inside
/// is monomorphised per game.
///
/// Inside, call the trait's functions by the trait (`<P as
/// GamePosition>::start`): a game's own inherent function of the same name
/// comes first otherwise.
///
/// ```
/// use damone::game::{perft, GameKind, GamePosition};
/// let start = |kind| damone::with_game!(kind, P => perft(&<P as GamePosition>::start(Default::default()), 2));
/// assert_eq!(start(GameKind::Damone), 64);
/// assert_eq!(start(GameKind::Italian), 49);
/// assert_eq!(start(GameKind::Dameo), 52 * 52);
/// ```
#[macro_export]
macro_rules! with_game {
    ($kind:expr, $P:ident => $body:expr) => {
        $crate::game_list!(@exported __with_game_match { $kind, $P, $body })
    };
}

/// The `match` of [`with_game!`](crate::with_game), made from the list.
#[doc(hidden)]
#[macro_export]
macro_rules! __with_game_match {
    ({ $kind:expr, $P:ident, $body:expr } $($variant:ident $name:literal $title:literal $ty:ty, $doc:literal,)*) => {
        match $kind {
            $($crate::game::GameKind::$variant => {
                type $P = $ty;
                $body
            })*
        }
    };
}

/// [`GameKind`], [`GAME_NAMES`] and the names' conversions, made from the
/// list.
macro_rules! define_game_kind {
    ({} $($variant:ident $name:literal $title:literal $ty:ty, $doc:literal,)*) => {
        /// The games damone plays, by the name configs and `--game` use.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        pub enum GameKind {
            $(
                #[doc = $doc]
                #[serde(rename = $name)]
                $variant,
            )*
        }

        /// How many games there are.
        pub const GAME_COUNT: usize = [$($name),*].len();

        /// Names accepted by [`GameKind`]'s `from_str`, in display order.
        pub const GAME_NAMES: [&str; GAME_COUNT] = [$($name),*];

        impl GameKind {
            /// Every game, in display order.
            pub const ALL: [GameKind; GAME_COUNT] = [$(GameKind::$variant),*];

            /// The name used in configs, files and on the command line.
            pub const fn name(self) -> &'static str {
                match self {
                    $(GameKind::$variant => $name,)*
                }
            }

            /// The game's name as people write it (`Italian draughts`).
            pub const fn title(self) -> &'static str {
                match self {
                    $(GameKind::$variant => $title,)*
                }
            }
        }

        impl std::str::FromStr for GameKind {
            type Err = UnknownGame;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s.trim() {
                    $($name => Ok(GameKind::$variant),)*
                    other => Err(UnknownGame(other.to_string())),
                }
            }
        }
    };
}

crate::game_list!(define_game_kind {});

impl GameKind {
    /// The game's identity in files and configs ([`GameId`]).
    pub const fn id(self) -> GameId {
        GameId::new(self.name(), self.title())
    }
}

/// A game as files and configs name it: any game, one of the list's or a
/// game another crate implements on damone's library (its
/// [`GamePosition::ID`](super::GamePosition::ID)). Two ids are one game
/// when their names are equal.
///
/// ```
/// use damone::game::{GameId, GameKind};
/// const CHECKERS: GameId = GameId::new("checkers", "English checkers");
/// assert_eq!(GameId::named("checkers").unwrap(), CHECKERS);
/// assert_eq!(GameId::named("italian").unwrap(), GameKind::Italian);
/// assert!(CHECKERS.kind().is_err(), "not one of the games compiled in");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct GameId {
    name: &'static str,
    title: &'static str,
}

impl GameId {
    /// A game's identity: `name` as configs and files write it (lower
    /// case letters, digits, `-` and `_`), `title` as people write it.
    pub const fn new(name: &'static str, title: &'static str) -> GameId {
        GameId { name, title }
    }

    /// The id a config or file names: a game of the list's, or any other
    /// well-formed name (its title is then the name). The error says what
    /// is wrong with the name.
    pub fn named(name: &str) -> Result<GameId, String> {
        let name = name.trim();
        if let Some(kind) = GameKind::ALL.into_iter().find(|k| k.name() == name) {
            return Ok(kind.id());
        }
        let well_formed = (1..=32).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
        if !well_formed {
            return Err(format!(
                "invalid game name '{}' (1-32 lower-case letters, digits, '-' or '_')",
                crate::util::clip(name, 40)
            ));
        }
        let (name, title) = intern(name, None);
        Ok(GameId::new(name, title))
    }

    /// Make a game written outside the crate known by its title: a file
    /// or config naming it then reads with its title (without this, a
    /// name the program does not know reads with the name as its title).
    /// The generic layers declare their game when they start on its type
    /// ([`crate::app::main`], [`crate::player::open`],
    /// [`RunConfig::fit_game`](crate::run::RunConfig::fit_game)).
    pub fn declare(self) {
        intern(self.name, Some(self.title));
    }

    /// The name used in configs, files and on the command line.
    pub const fn name(self) -> &'static str {
        self.name
    }

    /// The game's name as people write it.
    pub const fn title(self) -> &'static str {
        self.title
    }

    /// The game of the list with this name: the games this program can
    /// start from a name (`--game`, a file's game field).
    pub fn kind(self) -> Result<GameKind, UnknownGame> {
        GameKind::ALL
            .into_iter()
            .find(|k| k.name() == self.name)
            .ok_or_else(|| UnknownGame(self.name.to_string()))
    }
}

/// A game name read from a file, or declared with its title, kept for the
/// life of the process: each distinct name is stored once, with the title
/// declared for it (else the name). Returns the stored name and title.
fn intern(name: &str, title: Option<&'static str>) -> (&'static str, &'static str) {
    static NAMES: std::sync::Mutex<Vec<(&'static str, &'static str)>> = std::sync::Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = names.iter_mut().find(|(n, _)| *n == name) {
        if let Some(title) = title {
            known.1 = title;
        }
        return *known;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.push((leaked, title.unwrap_or(leaked)));
    *names.last().expect("just pushed")
}

impl PartialEq for GameId {
    fn eq(&self, other: &GameId) -> bool {
        self.name == other.name
    }
}
impl Eq for GameId {}
impl std::hash::Hash for GameId {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.name.hash(h)
    }
}
impl PartialEq<GameKind> for GameId {
    fn eq(&self, other: &GameKind) -> bool {
        self.name == other.name()
    }
}
impl PartialEq<GameId> for GameKind {
    fn eq(&self, other: &GameId) -> bool {
        self.name() == other.name
    }
}
impl From<GameKind> for GameId {
    fn from(kind: GameKind) -> GameId {
        kind.id()
    }
}
impl Default for GameId {
    /// The first game of the list.
    fn default() -> GameId {
        GameKind::default().id()
    }
}
impl std::fmt::Display for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}
impl std::str::FromStr for GameId {
    type Err = String;
    fn from_str(s: &str) -> Result<GameId, String> {
        GameId::named(s)
    }
}
impl serde::Serialize for GameId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name)
    }
}
impl<'de> serde::Deserialize<'de> for GameId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<GameId, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        GameId::named(&name).map_err(serde::de::Error::custom)
    }
}

impl GameKind {
    /// The game's rule variants by name, `standard` first.
    pub fn variant_names(self) -> &'static [&'static str] {
        crate::with_game!(self, P => <P as crate::game::GamePosition>::VARIANT_NAMES)
    }
}

/// The help of a `--variant` option, from the list of games: `standard`,
/// and each game's others (`for damone also damone-hunt or three-damas`).
pub fn variant_help() -> String {
    let others: Vec<String> = GameKind::ALL
        .iter()
        .filter(|k| k.variant_names().len() > 1)
        .map(|k| format!("for {} also {}", k.name(), k.variant_names()[1..].join(" or ")))
        .collect();
    match others.is_empty() {
        true => "Rules variant: standard".to_string(),
        false => format!("Rules variant: standard, or {}", others.join("; ")),
    }
}

impl Default for GameKind {
    /// The first game of the list.
    fn default() -> GameKind {
        GameKind::ALL[0]
    }
}

impl std::fmt::Display for GameKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown game name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown game '{0}' (expected one of: {names})", names = GAME_NAMES.join(", "))]
pub struct UnknownGame(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_as_its_game() {
        assert_eq!(GameKind::ALL.len(), GAME_NAMES.len());
        for (kind, name) in GameKind::ALL.into_iter().zip(GAME_NAMES) {
            assert_eq!(kind.name(), name);
            assert_eq!(name.parse::<GameKind>(), Ok(kind));
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{name}\""));
            assert_eq!(
                crate::with_game!(kind, P => <P as super::super::GamePosition>::ID),
                kind
            );
        }
        let err = "chess".parse::<GameKind>().unwrap_err().to_string();
        assert!(GAME_NAMES.iter().all(|n| err.contains(n)), "{err}");
    }

    #[test]
    fn a_game_id_is_any_well_formed_name_and_reads_back() {
        let chess = GameId::named("chess").unwrap();
        assert_eq!(chess.name(), "chess");
        assert_eq!(chess, GameId::named(" chess ").unwrap());
        assert!(
            std::ptr::eq(chess.name(), GameId::named("chess").unwrap().name()),
            "one copy per name"
        );
        let err = chess.kind().unwrap_err().to_string();
        assert!(err.contains("unknown game 'chess'"), "{err}");
        assert_eq!(serde_json::from_str::<GameId>("\"chess\"").unwrap(), chess);
        assert_eq!(serde_json::to_string(&chess).unwrap(), "\"chess\"");
        for bad in ["", "Chess", "a b", "x/y", &"x".repeat(33)] {
            let err = GameId::named(bad).unwrap_err();
            assert!(err.starts_with("invalid game name"), "{bad}: {err}");
        }
        let italian = GameId::named("italian").unwrap();
        assert_eq!(italian.title(), "Italian draughts");
        assert_eq!(italian.kind(), Ok(GameKind::Italian));
    }

    /// A game of another crate, once declared, reads from a file with its
    /// title; before, with its name.
    #[test]
    fn a_declared_game_reads_with_its_title() {
        assert_eq!(GameId::named("tak-test").unwrap().title(), "tak-test");
        GameId::new("tak-test", "Tak (a test)").declare();
        let read: GameId = serde_json::from_str("\"tak-test\"").unwrap();
        assert_eq!((read.name(), read.title()), ("tak-test", "Tak (a test)"));
    }
}
