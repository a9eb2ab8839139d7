//! The models the scoring functions apply: registered by name, or given as model-file bytes
//! (read once, then kept while the query runs).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use datafusion::common::{Result, ScalarValue, plan_err};
use margin_any::{self as any, AnyModel};

use crate::external;

/// How many models given as bytes stay read: a query applies one or a few.
const KEPT: usize = 4;

/// The models margin's scoring functions (`margin_predict`, …) know by name, shared by the
/// functions [`register`](crate::register) adds. Clones share the same models.
///
/// ```
/// # use datafusion::prelude::SessionContext;
/// # let bytes = margin_io::ModelFile::to_bytes(&margin_core::Fit::fit(
/// #     &margin_linear::Ridge::params(),
/// #     &margin_core::Dataset::regression(&[[0.0], [1.0]], [1.0, 3.0]).unwrap(),
/// # ).unwrap()).unwrap();
/// let ctx = SessionContext::new();
/// let models = margin_datafusion::register(&ctx);
/// models.insert("prices", &bytes)?; // SQL now says margin_predict('prices', x)
/// assert_eq!(models.names(), ["prices"]);
/// # Ok::<(), margin_core::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct Models {
    named: Arc<RwLock<HashMap<String, Arc<dyn AnyModel>>>>,
    /// Models given as bytes, the most recently used last.
    read: Arc<Mutex<Vec<Read>>>,
}

/// A model given as bytes, with those bytes.
struct Read {
    bytes: Vec<u8>,
    model: Arc<dyn AnyModel>,
}

impl Models {
    /// Reads model-file bytes (any kind [`margin_any::kinds`] lists) and registers the model
    /// as `name`, replacing any model of that name.
    ///
    /// # Errors
    /// [`margin_core::Error::ModelFile`] when the bytes are not such a model file.
    pub fn insert(&self, name: &str, bytes: &[u8]) -> margin_core::Result<()> {
        let model: Arc<dyn AnyModel> = Arc::from(any::load(bytes)?);
        self.named
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_owned(), model);
        Ok(())
    }

    /// Unregisters `name`; whether it was registered.
    pub fn remove(&self, name: &str) -> bool {
        self.named
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(name)
            .is_some()
    }

    /// The registered names, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .named
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect();
        names.sort_unstable();
        names
    }

    /// The model a scoring function's first argument names: a registered name (text) or
    /// model-file bytes (binary).
    pub(crate) fn resolve(&self, function: &str, value: &ScalarValue) -> Result<Arc<dyn AnyModel>> {
        match value {
            ScalarValue::Utf8(Some(name))
            | ScalarValue::LargeUtf8(Some(name))
            | ScalarValue::Utf8View(Some(name)) => self.named(function, name),
            ScalarValue::Binary(Some(bytes))
            | ScalarValue::LargeBinary(Some(bytes))
            | ScalarValue::BinaryView(Some(bytes)) => self.read(bytes),
            ScalarValue::FixedSizeBinary(_, Some(bytes)) => self.read(bytes),
            other if other.is_null() => {
                plan_err!("{function}'s model is null: give a registered name or model-file bytes")
            }
            other => plan_err!(
                "{function}'s first argument is the model, a registered name or model-file bytes; got a {}",
                other.data_type()
            ),
        }
    }

    fn named(&self, function: &str, name: &str) -> Result<Arc<dyn AnyModel>> {
        if let Some(model) = self
            .named
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
        {
            return Ok(model.clone());
        }
        let names = self.names();
        plan_err!(
            "{function}: no model is registered as `{name}` ({}); register it with Models::insert, or give the model file's bytes",
            if names.is_empty() {
                "none is".to_owned()
            } else {
                format!("registered: {}", names.join(", "))
            }
        )
    }

    fn read(&self, bytes: &[u8]) -> Result<Arc<dyn AnyModel>> {
        let mut read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(i) = read.iter().position(|r| r.bytes == bytes) {
            let entry = read.remove(i);
            let model = entry.model.clone();
            read.push(entry);
            return Ok(model);
        }
        // Reading under the lock keeps partitions from reading the same model at once.
        let model: Arc<dyn AnyModel> = Arc::from(any::load(bytes).map_err(external)?);
        if read.len() == KEPT {
            read.remove(0);
        }
        read.push(Read {
            bytes: bytes.to_vec(),
            model: model.clone(),
        });
        Ok(model)
    }
}

impl std::fmt::Debug for Models {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Models")
            .field("names", &self.names())
            .finish_non_exhaustive()
    }
}

// Functions compare equal when they share the same models (DataFusion compares functions to
// deduplicate expressions).
impl PartialEq for Models {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.named, &other.named)
    }
}

impl Eq for Models {}

impl Hash for Models {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::ptr::hash(Arc::as_ptr(&self.named), state);
    }
}
