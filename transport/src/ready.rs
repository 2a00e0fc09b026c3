//! The settings of the language bindings' ready servers (C `a2a_server_config`, Python
//! `AgentServer`, Node `serve`), turned into a [`ServerConfig`] in the one order that is
//! right, so that the three bindings cannot drift apart:
//!
//! 1. a card (and an extended card) that lists no interfaces gets the six of
//!    [`crate::demo::standard_interfaces`] at the server's origin (`https://` with TLS); with
//!    extended cards, the card declares `capabilities.extendedAgentCard`;
//! 2. each card is checked whole, as the service reads it (REQUIRED fields, values);
//! 3. with bearer tokens, every card declares the bearer scheme;
//! 4. last, the cards are signed (a change after signing would break the signature).

use crate::signing::SigningKey;
use crate::webhook::WebhookPolicy;
use crate::ServerConfig;
use a2a_wire::auth::BearerTokens;
use a2a_wire::v1;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;

/// What a binding's ready server is set up with besides its card and agent.
#[derive(Clone, Default)]
pub struct ReadyOptions {
    /// Token to principal: every call needs `Authorization: Bearer TOKEN`.
    pub bearer_tokens: Option<BearerTokens>,
    /// The application's judgement of each call (see [`crate::host::AuthHook`]); with
    /// [`ReadyOptions::bearer_tokens`] too, [`ReadyOptions::server_config`] refuses both.
    pub authenticate: Option<crate::host::AuthHook>,
    /// How long a canceled run may go on before it is stopped (`None`:
    /// [`crate::server::DEFAULT_CANCEL_GRACE`]).
    pub cancel_grace: Option<std::time::Duration>,
    /// Serve HTTPS only with this certificate.
    pub tls: Option<crate::tls::ServerTls>,
    /// The extended card every authenticated caller without a card of its own gets.
    pub extended_card: Option<v1::AgentCard>,
    /// Extended cards per principal.
    pub extended_cards: BTreeMap<String, v1::AgentCard>,
    /// Sign the card and the extended cards with this key (spec 8.4).
    pub signing_key: Option<Arc<SigningKey>>,
    /// The `jku` put in each signature's header (where the verifier may find the key set).
    pub card_jku: Option<String>,
    /// How push notifications are delivered (the SSRF guard's allow-list, TLS roots).
    pub webhooks: WebhookPolicy,
    /// How v0.3 gRPC and HTTP+JSON answers carry file bytes (see [`ServerConfig::v03_file_bytes`]).
    pub v03_file_bytes: a2a_wire::server::FileBytes,
    /// Where the tasks are kept: `None`, in memory (lost at exit); a path, the SQLite store
    /// in that file (created if missing; see [`crate::sqlite`]); a `postgres://` URL, that
    /// PostgreSQL database (see [`crate::postgres`]).
    pub store: Option<std::path::PathBuf>,
    /// With a store file: about how many bytes of idle tasks stay cached in memory (`None`:
    /// [`a2a_wire::engine::EngineConfig::cache_bytes`]' default, 64 MiB).
    pub cache_bytes: Option<usize>,
    /// Delete terminal tasks whose last change is older than this (`None`: keep every task).
    pub retention: Option<std::time::Duration>,
    /// The origin the card's interfaces use instead of the listening address (a load
    /// balancer's), as [`crate::demo::public_origin`] checks it.
    pub public_origin: Option<String>,
}

/// Which card a [`ReadyError::Card`] is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WhichCard {
    /// The public card.
    Public,
    /// The default extended card.
    Extended,
    /// The extended card of this principal.
    ExtendedOf(String),
}

impl std::fmt::Display for WhichCard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WhichCard::Public => write!(f, "the card"),
            WhichCard::Extended => write!(f, "the extended card"),
            WhichCard::ExtendedOf(p) => write!(f, "the extended card of {p:?}"),
        }
    }
}

/// Why a ready server's settings cannot be served.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadyError {
    /// A card, with the server's interfaces filled in, does not read as a v1.0 Agent Card:
    /// which card, and the decode error (it names the JSON path of the field at fault, so a
    /// binding can raise its precise validation error).
    Card {
        /// The card.
        card: WhichCard,
        /// Why it does not read.
        error: a2a_wire::codec::DecodeError,
    },
    /// A card holds a value ProtoJSON cannot write (which card, and why).
    Encode(String),
    /// The signing key could not sign a card.
    Signature(String),
    /// The store file could not be opened (which file, and why).
    Store(String),
    /// Both bearer tokens and an authentication hook were given: a call has one judge.
    Auth,
}

impl std::fmt::Display for ReadyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadyError::Card { card, error } => write!(f, "{card}: {error}"),
            ReadyError::Encode(m) | ReadyError::Signature(m) | ReadyError::Store(m) => write!(f, "{m}"),
            ReadyError::Auth => {
                write!(f, "bearer tokens and an authentication hook were both given: give one (the tokens are a hook of their own)")
            }
        }
    }
}

impl std::error::Error for ReadyError {}

/// `card` with the standard interfaces when it lists none, checked as the service reads it.
fn served(card: v1::AgentCard, origin: &str, which: WhichCard) -> Result<v1::AgentCard, ReadyError> {
    let card = crate::demo::with_standard_interfaces_at(card, origin);
    let bytes = a2a_wire::codec::json::encode(&card).map_err(|e| ReadyError::Encode(format!("{which}: {e}")))?;
    a2a_wire::codec::json::decode::<v1::AgentCard>(&bytes).map_err(|error| ReadyError::Card { card: which, error })
}

impl ReadyOptions {
    /// The origin a server at `addr` with these options publishes (`https://` with TLS), or
    /// [`ReadyOptions::public_origin`].
    pub fn origin(&self, addr: SocketAddr) -> String {
        if let Some(o) = &self.public_origin {
            return o.clone();
        }
        self.listening_origin(addr)
    }

    /// The origin a server at `addr` with these options listens on (`https://` with TLS),
    /// whatever the card names: the `url` a ready server reports.
    pub fn listening_origin(&self, addr: SocketAddr) -> String {
        crate::demo::origin(addr, self.tls.is_some())
    }

    /// Opens the store [`ReadyOptions::store`] names (memory when none).
    pub fn open_store(&self) -> Result<crate::store::Store, ReadyError> {
        match &self.store {
            None => Ok(crate::store::Store::Memory(a2a_wire::engine::MemoryStore::new())),
            #[cfg(feature = "postgres")]
            Some(url) if crate::postgres::is_url(&url.to_string_lossy()) => {
                crate::postgres::PgStore::open(&url.to_string_lossy()).map(crate::store::Store::from).map_err(|e| ReadyError::Store(e.0))
            }
            #[cfg(not(feature = "postgres"))]
            Some(url) if ["postgres://", "postgresql://"].iter().any(|p| url.to_string_lossy().starts_with(p)) => {
                Err(ReadyError::Store(String::from("a postgres:// store: built without the `postgres` feature")))
            }
            #[cfg(feature = "sqlite")]
            Some(path) => crate::sqlite::SqliteStore::open(path)
                .map(crate::store::Store::from)
                .map_err(|e| ReadyError::Store(format!("the store {}: {e}", path.display()))),
            #[cfg(not(feature = "sqlite"))]
            Some(path) => Err(ReadyError::Store(format!("the store {}: built without the `sqlite` feature", path.display()))),
        }
    }

    /// The server config for `card` (required in every binding: a card says who the agent
    /// is; one without interfaces gets the standard six) served at `addr` (a concrete
    /// address: see [`crate::server::concrete_addr`]), in the order the module documentation
    /// gives. The log is silent (the bindings report through their own languages).
    pub fn server_config(self, mut card: v1::AgentCard, addr: SocketAddr) -> Result<ServerConfig, ReadyError> {
        let origin = self.origin(addr);
        if self.extended_card.is_some() || !self.extended_cards.is_empty() {
            card.capabilities.get_or_insert_with(Default::default).extended_agent_card = Some(true);
        }
        let card = served(card, &origin, WhichCard::Public)?;
        let mut config = ServerConfig::new(card);
        config.extended_card = self.extended_card.map(|c| served(c, &origin, WhichCard::Extended)).transpose()?;
        for (principal, c) in self.extended_cards {
            let c = served(c, &origin, WhichCard::ExtendedOf(principal.clone()))?;
            config.extended_cards.insert(principal, c);
        }
        match (self.bearer_tokens, self.authenticate) {
            (Some(_), Some(_)) => return Err(ReadyError::Auth),
            (Some(t), None) => config = config.with_bearer_tokens(t),
            (None, hook) => config.authenticate = hook,
        }
        if let Some(g) = self.cancel_grace {
            config.cancel_grace = g;
        }
        config.log = a2a_wire::log::silent();
        config.tls = self.tls;
        config.webhooks = self.webhooks;
        config.v03_file_bytes = self.v03_file_bytes;
        if let Some(b) = self.cache_bytes {
            config.cache_bytes = b;
        }
        config.retention = self.retention;
        if let Some(key) = &self.signing_key {
            config.sign_cards(key, self.card_jku.as_deref()).map_err(|e| ReadyError::Signature(e.to_string()))?;
        }
        Ok(config)
    }
}

/// A duration as `a2a-wire serve --retain` and the bindings' retention settings take it: a
/// whole number and a unit, `ms`, `s`, `m`, `h` or `d` (`90s`, `12h`, `30d`).
pub fn parse_duration(v: &str) -> Option<std::time::Duration> {
    let digits = v.find(|c: char| !c.is_ascii_digit())?;
    let (n, unit) = v.split_at(digits);
    let n: u64 = n.parse().ok()?;
    let ms: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    Some(std::time::Duration::from_millis(n.checked_mul(ms)?))
}

/// Parses allow-list entries (a host name, an address or a CIDR network each; see
/// [`a2a_wire::webhook::Allow`]) into `policy`; the error names the entry.
pub fn allow_webhooks<S: AsRef<str>>(policy: &mut WebhookPolicy, entries: &[S]) -> Result<(), String> {
    for e in entries {
        let e = e.as_ref();
        policy.allow.push(e.parse().map_err(|m| format!("webhook allow-list entry {e:?}: {m}"))?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_wire::signing::{CardSigner, Verification};

    const ED: &str = r#"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"ed"}"#;

    fn addr() -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], 4321))
    }

    /// A valid card without interfaces.
    fn named(name: &str) -> v1::AgentCard {
        v1::AgentCard { name: name.into(), supported_interfaces: Vec::new(), ..crate::demo::card_at("http://x") }
    }

    #[test]
    fn cards_get_interfaces_the_bearer_scheme_and_then_a_signature_that_covers_both() -> Result<(), Box<dyn std::error::Error>> {
        let key = Arc::new(SigningKey::from_jwk(ED)?);
        let mut options = ReadyOptions {
            bearer_tokens: Some(BearerTokens::parse("tok-a alice\n")?),
            extended_card: Some(named("Default")),
            signing_key: Some(key.clone()),
            card_jku: Some("https://keys.example/jwks.json".into()),
            ..ReadyOptions::default()
        };
        options.extended_cards.insert("alice".into(), named("Alice's"));
        let config = options.server_config(named("Public"), addr())?;
        let keys = crate::signing::CardKeySet::default().with_key(&key);
        let ext = config.extended_card.as_ref().ok_or("an extended card")?;
        let alice = config.extended_cards.get("alice").ok_or("alice's card")?;
        for card in [&config.card, ext, alice] {
            assert_eq!(card.supported_interfaces.len(), 6, "{}", card.name);
            assert!(card.supported_interfaces[0].url.starts_with("http://127.0.0.1:4321/"), "{}", card.name);
            assert!(card.security_schemes.contains_key("bearer"), "{}", card.name);
            let v = keys.verify_card(card, Verification { accept_sdk_form: false })?;
            assert_eq!((v.kid.as_str(), v.jku.as_deref()), (key.kid(), Some("https://keys.example/jwks.json")));
        }
        assert_eq!(alice.name, "Alice's");
        assert_eq!(config.card.capabilities.as_ref().and_then(|c| c.extended_agent_card), Some(true), "declared");
        Ok(())
    }

    #[test]
    fn tls_publishes_https_and_bad_cards_and_entries_are_named() -> Result<(), Box<dyn std::error::Error>> {
        let config = ReadyOptions::default().server_config(named("x"), addr())?;
        assert_eq!(config.card.supported_interfaces[0].url, "http://127.0.0.1:4321/a2a/jsonrpc");
        // A card without its REQUIRED description is refused, and the message says which card.
        let mut options = ReadyOptions::default();
        options.extended_cards.insert("bob".into(), v1::AgentCard { description: String::new(), ..named("x") });
        let Err(e @ ReadyError::Card { .. }) = options.server_config(named("x"), addr()) else {
            return Err("a bad extended card was served".into());
        };
        assert!(
            matches!(&e, ReadyError::Card { card: WhichCard::ExtendedOf(p), error } if p == "bob" && error.field() == "description"),
            "{e:?}"
        );
        assert!(e.to_string().contains("\"bob\""), "{e}");
        let mut policy = WebhookPolicy::default();
        allow_webhooks(&mut policy, &["127.0.0.1", "10.0.0.0/8", "localhost"])?;
        assert_eq!(policy.allow.len(), 3);
        let e = allow_webhooks(&mut policy, &["10.0.0.0/99"]).err().ok_or("a bad prefix was taken")?;
        assert!(e.contains("10.0.0.0/99"), "{e}");
        Ok(())
    }
}
