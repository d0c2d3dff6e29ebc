//! Building an object_store store from a URL, the environment and [`Options`].

use core::future::Future;
use core::pin::Pin;
use core::str::FromStr;
use core::sync::atomic::{AtomicU64, Ordering};
use std::string::String;
use std::sync::{Arc, Mutex, PoisonError};
use std::vec::Vec;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpRequest, HttpResponse, HttpService, ReqwestConnector,
};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
use object_store::http::HttpBuilder;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{
    BackoffConfig, ClientConfigKey, ClientOptions, ObjectStore, ObjectStoreScheme, RetryConfig,
};
use url::Url;

use crate::error::{Problem, RemoteError, one_line};
use crate::options::{DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT, Options};

/// A store, the object's path in it, and what the store can do.
pub(crate) struct Built {
    pub(crate) store: Arc<dyn ObjectStore>,
    pub(crate) path: Path,
    /// Whether suffix ranges (`bytes=-n`) work: Azure Blob Storage has none.
    pub(crate) suffix_ranges: bool,
    /// The request timeout in force, for messages.
    pub(crate) timeout: Option<core::time::Duration>,
    /// HTTP requests sent through the store's client (none for `file://`).
    pub(crate) http_requests: Arc<AtomicU64>,
}

/// Counts every HTTP request the store's client sends: retries, and the requests of
/// credential providers (instance metadata, STS, OAuth), included.
#[derive(Debug)]
struct CountingConnector {
    inner: ReqwestConnector,
    count: Arc<AtomicU64>,
    /// Whether the client may be one made before for the same settings ([`shared`]).
    share: bool,
}

impl HttpConnector for CountingConnector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        let inner = if self.share {
            shared(&self.inner, options)?
        } else {
            self.inner.connect(options)?
        };
        Ok(HttpClient::new(CountingService {
            inner,
            count: Arc::clone(&self.count),
        }))
    }
}

/// The HTTP clients made so far, by their settings: the sources of one process with the
/// same settings share one client, and so its connections (an index and its shards on one
/// host: one TCP connection, one handshake, where each source had its own). Each source
/// still counts its own requests ([`CountingService`]).
static CLIENTS: Mutex<Vec<(String, HttpClient)>> = Mutex::new(Vec::new());

/// At most this many clients are kept (settings differ only between configurations).
const CLIENTS_KEPT: usize = 16;

/// A client for `options`: the one made before for the same settings, or a new one.
fn shared(
    connector: &ReqwestConnector,
    options: &ClientOptions,
) -> object_store::Result<HttpClient> {
    // The settings as text, compared and never shown (a proxy URL may hold credentials).
    let key = std::format!("{options:?}");
    let known = |clients: &[(String, HttpClient)]| {
        clients
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, c)| c.clone())
    };
    let lock = || CLIENTS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(client) = known(&lock()) {
        return Ok(client);
    }
    // Made outside the lock (it reads the system's certificates): sources opened at once
    // on other threads do not wait for it. Two made at once for the same settings: the
    // first kept serves later sources.
    let client = connector.connect(options)?;
    let mut clients = lock();
    if let Some(first) = known(&clients) {
        return Ok(first);
    }
    if clients.len() < CLIENTS_KEPT {
        clients.push((key.clone(), client.clone()));
    }
    Ok(client)
}

#[derive(Debug)]
struct CountingService {
    inner: HttpClient,
    count: Arc<AtomicU64>,
}

// `HttpService` is declared with `#[async_trait]`; this is the signature it expands to.
impl HttpService for CountingService {
    fn call<'life0, 'async_trait>(
        &'life0 self,
        req: HttpRequest,
    ) -> Pin<Box<dyn Future<Output = Result<HttpResponse, HttpError>> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        self.count.fetch_add(1, Ordering::Relaxed);
        Box::pin(self.inner.execute(req))
    }
}

fn config(shown: &str, what: String) -> RemoteError {
    RemoteError::new(shown, Problem::Config(what))
}

/// Builds the store for `url` (shown in messages as `shown`).
pub(crate) fn build(url: &Url, options: &Options, shown: &str) -> Result<Built, RemoteError> {
    let (scheme, path) = ObjectStoreScheme::parse(url).map_err(|e| {
        config(
            shown,
            std::format!(
                "not a URL binfmt can read ({}); use s3://, gs://, az://, abfs(s)://, http(s):// or file://",
                one_line(&e.to_string())
            ),
        )
    })?;
    let retry = RetryConfig {
        backoff: BackoffConfig {
            init_backoff: core::time::Duration::from_millis(100),
            max_backoff: core::time::Duration::from_secs(5),
            base: 2.0,
        },
        max_retries: options.retries(),
        retry_timeout: options.retry_timeout(),
    };
    let http_requests = Arc::new(AtomicU64::new(0));
    let connector = || CountingConnector {
        inner: ReqwestConnector::default(),
        count: Arc::clone(&http_requests),
        // A resolver of the caller's is compared by its text, which two resolvers may
        // share: a source with one gets a client of its own.
        share: options.dns_resolver.is_none(),
    };
    let built = |store: Arc<dyn ObjectStore>, suffix_ranges, client: &ClientOptions| Built {
        store,
        path: path.clone(),
        suffix_ranges,
        timeout: client
            .get_config_value(&ClientConfigKey::ReadTimeout)
            .and_then(|v| parse_humantime(&v)),
        http_requests: Arc::clone(&http_requests),
    };
    let fail = |e: object_store::Error| {
        config(
            shown,
            std::format!("cannot set up the store: {}", one_line(&e.to_string())),
        )
    };
    match scheme {
        ObjectStoreScheme::Local => {
            if !options.store_options.is_empty() {
                return Err(config(
                    shown,
                    String::from("file:// URLs take no store options"),
                ));
            }
            let client = ClientOptions::new();
            Ok(built(Arc::new(LocalFileSystem::new()), true, &client))
        }
        ObjectStoreScheme::AmazonS3 => {
            let (b, client) = cloud_builder::<AmazonS3Builder>(shown, url, options)?;
            plain_http_check(
                shown,
                b.get_config_value(&AmazonS3ConfigKey::Endpoint),
                &client,
                "AWS_ENDPOINT",
                "AWS_ALLOW_HTTP",
            )?;
            let store = b.finish(&client, retry, connector()).map_err(fail)?;
            Ok(built(store, true, &client))
        }
        ObjectStoreScheme::GoogleCloudStorage => {
            let (b, client) = cloud_builder::<GoogleCloudStorageBuilder>(shown, url, options)?;
            let store = b.finish(&client, retry, connector()).map_err(fail)?;
            Ok(built(store, true, &client))
        }
        ObjectStoreScheme::MicrosoftAzure => {
            let (b, client) = cloud_builder::<MicrosoftAzureBuilder>(shown, url, options)?;
            // Azurite (`AZURE_STORAGE_USE_EMULATOR`) is allowed plain HTTP by the builder.
            let emulator = b
                .get_config_value(&AzureConfigKey::UseEmulator)
                .is_some_and(|v| v.eq_ignore_ascii_case("true"));
            plain_http_check(
                shown,
                b.get_config_value(&AzureConfigKey::Endpoint)
                    .filter(|_| !emulator),
                &client,
                "AZURE_STORAGE_ENDPOINT",
                "AZURE_ALLOW_HTTP",
            )?;
            let store = b.finish(&client, retry, connector()).map_err(fail)?;
            Ok(built(store, false, &client))
        }
        ObjectStoreScheme::Http => {
            if url.query().is_some() {
                // object_store's HTTP store addresses objects by path alone: a presigned
                // URL's signature would be dropped and the server would answer 403.
                return Err(config(
                    shown,
                    String::from(
                        "URLs with a query string (presigned URLs) cannot be read: the query would be dropped",
                    ),
                ));
            }
            let (client, _rest) =
                split_options(shown, "", options, |k: &ClientConfigKey| Some(*k))?;
            let mut client = finish_client(client, options);
            if url.scheme() == "http" {
                // The user asked for plain HTTP by writing http://.
                client = client.with_allow_http(true);
            }
            let base = &url[..url::Position::BeforePath];
            let store = HttpBuilder::new()
                .with_url(base)
                .finish(&client, retry, connector())
                .map_err(fail)?;
            Ok(built(store, true, &client))
        }
        _ => Err(config(
            shown,
            String::from(
                "not a URL binfmt can read; use s3://, gs://, az://, abfs(s)://, http(s):// or file://",
            ),
        )),
    }
}

/// The last steps of every object_store builder (they share no trait of their own): our
/// client settings, retries and counting connector, then `build`.
trait StoreBuilder {
    fn finish(
        self,
        client: &ClientOptions,
        retry: RetryConfig,
        connector: CountingConnector,
    ) -> object_store::Result<Arc<dyn ObjectStore>>;
}

/// A cloud store's builder, configured from its environment variables and the options.
trait CloudBuilder: StoreBuilder + Sized {
    /// The builder's setting keys.
    type Key: FromStr<Err = object_store::Error>;
    /// The prefix of the environment variables its `from_env` reads.
    const PREFIX: &'static str;
    /// The client setting `key` is, if it is one.
    fn client_key(key: &Self::Key) -> Option<ClientConfigKey>;
    /// `from_env().with_url(url)`.
    fn for_url(url: &Url) -> Self;
    /// `with_config(key, value)`.
    fn with_setting(self, key: Self::Key, value: String) -> Self;
}

/// Implements [`StoreBuilder`] for builders, and [`CloudBuilder`] for those given with
/// their key type and environment prefix.
macro_rules! store_builders {
    ($($builder:ident $(($key:ident, $prefix:literal))?),* $(,)?) => {$(
        impl StoreBuilder for $builder {
            fn finish(
                self,
                client: &ClientOptions,
                retry: RetryConfig,
                connector: CountingConnector,
            ) -> object_store::Result<Arc<dyn ObjectStore>> {
                let store = self
                    .with_client_options(client.clone())
                    .with_retry(retry)
                    .with_http_connector(connector)
                    .build()?;
                Ok(Arc::new(store))
            }
        }
        $(
            impl CloudBuilder for $builder {
                type Key = $key;
                const PREFIX: &'static str = $prefix;
                fn client_key(key: &$key) -> Option<ClientConfigKey> {
                    match key {
                        $key::Client(c) => Some(*c),
                        _ => None,
                    }
                }
                fn for_url(url: &Url) -> Self {
                    Self::from_env().with_url(url.as_str())
                }
                fn with_setting(self, key: $key, value: String) -> Self {
                    self.with_config(key, value)
                }
            }
        )?
    )*};
}

store_builders!(
    AmazonS3Builder(AmazonS3ConfigKey, "AWS_"),
    GoogleCloudStorageBuilder(GoogleConfigKey, "GOOGLE_"),
    MicrosoftAzureBuilder(AzureConfigKey, "AZURE_"),
    HttpBuilder,
);

/// A cloud store's builder for `url` with its settings (its environment variables, then
/// the store options), and the client settings it is to be built with.
fn cloud_builder<B: CloudBuilder>(
    shown: &str,
    url: &Url,
    options: &Options,
) -> Result<(B, ClientOptions), RemoteError> {
    let (client, rest) = split_options(shown, B::PREFIX, options, B::client_key)?;
    let client = finish_client(client, options);
    let mut b = B::for_url(url);
    for (k, v) in rest {
        b = b.with_setting(k, v);
    }
    Ok((b, client))
}

/// A store's client settings: from its environment variables (`prefix`; none for plain
/// HTTP), then from [`Options::with_store_option`].
struct Client {
    options: ClientOptions,
    /// Whether those set a whole-request timeout (`AWS_TIMEOUT`, `timeout`, …).
    total_timeout: bool,
}

/// The client settings of a store, and its other settings from the options (its other
/// variables are read by its builder's `from_env`).
fn split_options<K>(
    shown: &str,
    prefix: &str,
    options: &Options,
    client_key: impl Fn(&K) -> Option<ClientConfigKey>,
) -> Result<(Client, Vec<(K, String)>), RemoteError>
where
    K: FromStr<Err = object_store::Error>,
{
    let mut client = ClientOptions::new();
    let mut total_timeout = false;
    if !prefix.is_empty() {
        // What the builder's `from_env` reads, so that its client settings survive our
        // `with_client_options`.
        for (key, value) in std::env::vars_os() {
            if let (Some(key), Some(value)) = (key.to_str(), value.to_str())
                && key.starts_with(prefix)
                && let Ok(k) = key.to_ascii_lowercase().parse::<K>()
                && let Some(c) = client_key(&k)
            {
                total_timeout |= c == ClientConfigKey::Timeout;
                client = client.with_config(c, value);
            }
        }
    }
    let mut rest = Vec::new();
    for (key, value) in &options.store_options {
        let k = key.to_ascii_lowercase().parse::<K>().map_err(|_| {
            config(
                shown,
                std::format!("{key:?} is not a setting of this store"),
            )
        })?;
        match client_key(&k) {
            Some(c) => {
                total_timeout |= c == ClientConfigKey::Timeout;
                client = client.with_config(c, value.clone());
            }
            None => rest.push((k, value.clone())),
        }
    }
    Ok((
        Client {
            options: client,
            total_timeout,
        },
        rest,
    ))
}

/// A plain `http://` endpoint without `allow_http` would fail every request with
/// reqwest's "builder error": say what to set instead, before any request.
fn plain_http_check(
    shown: &str,
    endpoint: Option<String>,
    client: &ClientOptions,
    endpoint_var: &str,
    allow_var: &str,
) -> Result<(), RemoteError> {
    let allowed = client
        .get_config_value(&ClientConfigKey::AllowHttp)
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    match endpoint {
        Some(e)
            if !allowed
                && e.get(..7)
                    .is_some_and(|p| p.eq_ignore_ascii_case("http://")) =>
        {
            Err(config(
                shown,
                std::format!(
                    "the endpoint {e} ({endpoint_var}) is plain HTTP, which is refused unless {allow_var}=true"
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// Our timeouts and the DNS resolver.
///
/// Our timeout is an idle timeout (reqwest's read timeout: no byte for this long), not
/// object_store's default 30 s for a whole request, which a large range on a slow link
/// could not meet. A whole-request timeout applies only where the store's own settings ask
/// for one (`AWS_TIMEOUT`, `timeout`, …).
fn finish_client(client: Client, options: &Options) -> ClientOptions {
    let Client {
        options: mut client,
        total_timeout,
    } = client;
    if !total_timeout {
        client = client.with_timeout_disabled();
    }
    if let Some(t) = options.timeout() {
        client = client.with_read_timeout(t);
    } else if client
        .get_config_value(&ClientConfigKey::ReadTimeout)
        .is_none()
    {
        client = client.with_read_timeout(DEFAULT_TIMEOUT);
    }
    if let Some(t) = options.connect_timeout() {
        client = client.with_connect_timeout(t);
    } else if client
        .get_config_value(&ClientConfigKey::ConnectTimeout)
        .is_none()
    {
        client = client.with_connect_timeout(DEFAULT_CONNECT_TIMEOUT);
    }
    if let Some(r) = &options.dns_resolver {
        client = client.with_dns_resolver(Arc::clone(r));
    }
    client
}

/// Reads back a duration that object_store keeps as text (`"30s"`, `"1s 500ms"`, `"2m"`),
/// for messages; `None` for forms it does not know.
fn parse_humantime(v: &str) -> Option<core::time::Duration> {
    v.split_whitespace()
        .try_fold(core::time::Duration::ZERO, |acc, part| {
            Some(acc + crate::options::parse_duration("", part).ok()?)
        })
}
