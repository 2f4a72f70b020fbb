//! The `wasm:` modules of sweeps in the JetStream object store (bucket
//! [`names::MODULES_BUCKET`]), each under its SHA-256: `submit` puts a sweep's modules there
//! before it publishes a job, and a worker fetches a module it lacks before it plays a job that
//! names it. An object's name is its content's hash, so a module is stored once however many
//! sweeps use it, and what a worker fetches is checked against the name it asked for.

use async_nats::jetstream::{self, object_store};
use tokio::io::AsyncReadExt;

use crate::names;

/// Why a module could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The bucket or the object does not exist: the sweep was submitted without it.
    #[error("module {0} is not in the object store (bucket {bucket}): submit the sweep again with its files", bucket = names::MODULES_BUCKET)]
    Missing(String),
    /// The server did not answer as it should; worth another try.
    #[error("cannot fetch module {0} from the object store: {1}")]
    Unavailable(String, String),
}

/// The modules bucket, created if missing with `replicas` replicas.
async fn bucket(js: &jetstream::Context, replicas: usize) -> anyhow::Result<object_store::ObjectStore> {
    match js.get_object_store(names::MODULES_BUCKET).await {
        Ok(store) => Ok(store),
        Err(_) => Ok(js
            .create_object_store(object_store::Config {
                bucket: names::MODULES_BUCKET.to_string(),
                description: Some("simfleet: the wasm: modules of sweeps, by SHA-256".into()),
                num_replicas: replicas,
                ..Default::default()
            })
            .await?),
    }
}

/// Puts each `(hash, bytes)` in the bucket unless it is there already; returns how many it put.
pub async fn put(js: &jetstream::Context, modules: &[(&str, &[u8])], replicas: usize) -> anyhow::Result<usize> {
    if modules.is_empty() {
        return Ok(0);
    }
    let store = bucket(js, replicas).await?;
    let mut put = 0;
    for (hash, bytes) in modules {
        if store.info(*hash).await.is_ok() {
            continue;
        }
        let mut reader: &[u8] = bytes;
        store.put(*hash, &mut reader).await.map_err(|e| anyhow::anyhow!("cannot store module {hash}: {e}"))?;
        put += 1;
    }
    Ok(put)
}

/// The bytes of module `hash` (not yet checked against it: the caller's cache does that).
pub async fn fetch(js: &jetstream::Context, hash: &str) -> Result<Vec<u8>, FetchError> {
    let unavailable = |e: String| FetchError::Unavailable(hash.to_string(), e);
    let store = match js.get_object_store(names::MODULES_BUCKET).await {
        Ok(s) => s,
        Err(e) if e.kind() == jetstream::context::ObjectStoreErrorKind::GetStore => {
            return Err(FetchError::Missing(hash.to_string()))
        }
        Err(e) => return Err(unavailable(e.to_string())),
    };
    let mut object = match store.get(hash).await {
        Ok(o) => o,
        Err(e) if e.kind() == object_store::GetErrorKind::NotFound => {
            return Err(FetchError::Missing(hash.to_string()))
        }
        Err(e) => return Err(unavailable(e.to_string())),
    };
    let mut bytes = Vec::new();
    object.read_to_end(&mut bytes).await.map_err(|e| unavailable(e.to_string()))?;
    Ok(bytes)
}
