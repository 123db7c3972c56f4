//! Engine calls off the JS thread. Every heavy method is built once as a
//! `Call`: its arguments read on the JS thread (they are JS values), and the
//! engine work as a closure over owned data. `now` runs it on the calling
//! thread (the synchronous method); `spawn` runs it on libuv's thread pool
//! as a napi `AsyncTask` and settles a promise with its result (the `…Async`
//! method), so the host's event loop keeps answering meanwhile. A method
//! added later gets its asynchronous form by ending in `.spawn(&env)`.
//!
//! A call a model made is recorded (`telemetry`): its probe, made when its
//! arguments are read, times the engine's work here, on whichever thread
//! runs it, and is finished with its result, so that every host's calls
//! pass through one place to be recorded.
//!
//! An `AbortSignal` (option `signal`) cancels the call's `hashline::Cancel`:
//! the engine looks at it where stopping leaves nothing half done (before
//! the call starts, between files, as the last step before a write), and
//! the call then fails with `CANCELLED` (`name` `AbortError`), nothing
//! written. A signal aborted already stops the call before it starts. The
//! listener is added with `addEventListener` and removed when the call
//! settles, so a long-lived signal collects nothing; napi-rs's own
//! `AbortSignal` support is not used, because it sets `signal.onabort`
//! (replacing a handler the host set there), ignores a signal aborted
//! before the call, and keeps an entry per call on the signal.

use crate::error::{caught, to_js_error};
use crate::recorder::{timed, Probe, Recorded, Recording};
use hashline::{Cancel, Error};
use napi::bindgen_prelude::*;
use napi::sys;
use std::ffi::CStr;
use std::ptr;

/// The engine work of one call, given the token to honour.
type Work<T> = Box<dyn FnOnce(&Cancel) -> hashline::Result<T> + Send>;

/// An engine call with its arguments read, to run now or on the pool.
pub struct Call<'env, T> {
    work: Work<T>,
    signal: Option<Signal<'env>>,
    probe: Option<Recording<T>>,
}

impl<'env, T: Send + 'static> Call<'env, T> {
    /// `work` with the signal from a call's options, if any.
    pub fn new(
        signal: Option<Signal<'env>>,
        work: impl FnOnce(&Cancel) -> hashline::Result<T> + Send + 'static,
    ) -> Call<'env, T> {
        Call {
            work: Box::new(work),
            signal,
            probe: None,
        }
    }

    /// This call, recorded by `probe` (none: not recorded).
    pub(crate) fn recorded(self, probe: Option<Probe>) -> Call<'env, T>
    where
        T: Recorded,
    {
        let finish = Probe::finish::<T> as fn(Probe, &hashline::Result<T>);
        Call {
            probe: probe.map(|probe| (probe, finish)),
            ..self
        }
    }

    /// Runs the call on this thread: the synchronous form. Nothing can
    /// abort it while it runs (the JS thread is busy with it); a signal
    /// aborted before stops it from starting.
    pub fn now(self, env: &Env) -> Result<T> {
        let cancel = Cancel::new();
        caught(|| {
            if let Some(signal) = &self.signal {
                if signal.aborted()? {
                    cancel.cancel();
                }
            }
            cancel.check()?;
            timed(self.probe, || (self.work)(&cancel))
        })
        .map_err(|err| to_js_error(env, err))
    }

    /// Runs the call on libuv's thread pool; a promise of its result.
    pub fn spawn(self, env: &Env) -> Result<AsyncTask<Running<T>>>
    where
        T: ToNapiValue + TypeName,
    {
        let cancel = Cancel::new();
        let listener = match self.signal {
            None => None,
            Some(signal) => match caught(|| signal.listen(env, &cancel)) {
                Ok(listener) => listener,
                Err(err) => return Err(to_js_error(env, err)),
            },
        };
        Ok(AsyncTask::new(Running {
            work: Some(self.work),
            cancel,
            listener,
            probe: self.probe,
        }))
    }
}

/// A call on the pool: its work until it runs, its token, the listener to
/// remove from the signal once it settles, and its probe.
pub struct Running<T> {
    work: Option<Work<T>>,
    cancel: Cancel,
    listener: Option<Listener>,
    probe: Option<Recording<T>>,
}

impl<T: ToNapiValue + TypeName + Send + 'static> Task for Running<T> {
    type Output = hashline::Result<T>;
    type JsValue = T;

    fn compute(&mut self) -> Result<Self::Output> {
        let work = self.work.take();
        let probe = self.probe.take();
        let cancel = self.cancel.clone();
        Ok(caught(move || {
            cancel.check()?;
            match work {
                Some(work) => timed(probe, || work(&cancel)),
                None => Err(Error::new(
                    hashline::ErrorCode::Internal,
                    "An asynchronous call ran twice.",
                )),
            }
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<T> {
        output.map_err(|err| to_js_error(&env, err))
    }

    fn finally(self, env: Env) -> Result<()> {
        if let Some(listener) = self.listener {
            listener.remove(&env);
        }
        Ok(())
    }
}

/// An `AbortSignal` a caller passed: any object with a boolean `aborted`
/// and `addEventListener`/`removeEventListener` methods, as the DOM and
/// Node define it.
pub struct Signal<'env> {
    env: sys::napi_env,
    value: sys::napi_value,
    _scope: std::marker::PhantomData<&'env ()>,
}

/// A handler added to a signal, held until the call settles.
struct Listener {
    signal: sys::napi_ref,
    handler: sys::napi_ref,
}

// SAFETY: the references are created and used on the JS thread only (in
// `spawn` and in `finally`); the pool thread carries them untouched.
unsafe impl Send for Listener {}

const ABORT: &CStr = c"abort";

impl<'env> Signal<'env> {
    /// The `signal` field of an options object, if it has one (left out,
    /// `undefined` or `null`: none). Anything else that is not shaped like
    /// an `AbortSignal` is `INVALID_REQUEST`.
    pub fn of_options(
        env: &Env,
        options: Option<&Unknown<'env>>,
    ) -> hashline::Result<Option<Self>> {
        let Some(options) = options else {
            return Ok(None);
        };
        if options.get_type().ok() != Some(ValueType::Object) {
            return Ok(None);
        }
        let env = env.raw();
        let value = property(env, options.raw(), c"signal")?;
        match type_of(env, value)? {
            sys::ValueType::napi_undefined | sys::ValueType::napi_null => return Ok(None),
            sys::ValueType::napi_object => {}
            _ => return Err(not_a_signal()),
        }
        let signal = Signal {
            env,
            value,
            _scope: std::marker::PhantomData,
        };
        signal.aborted()?;
        for method in [c"addEventListener", c"removeEventListener"] {
            if type_of(env, property(env, value, method)?)? != sys::ValueType::napi_function {
                return Err(not_a_signal());
            }
        }
        Ok(Some(signal))
    }

    fn aborted(&self) -> hashline::Result<bool> {
        let value = property(self.env, self.value, c"aborted")?;
        let mut aborted = false;
        // SAFETY: `value` is a live handle of this call.
        match unsafe { sys::napi_get_value_bool(self.env, value, &mut aborted) } {
            sys::Status::napi_ok => Ok(aborted),
            _ => Err(not_a_signal()),
        }
    }

    /// Cancels `cancel` when the signal aborts: at once if it has, else
    /// from an `abort` listener, returned so that it can be removed.
    fn listen(self, env: &Env, cancel: &Cancel) -> hashline::Result<Option<Listener>> {
        if self.aborted()? {
            cancel.cancel();
            return Ok(None);
        }
        let token = cancel.clone();
        let handler = env
            .create_function_from_closure::<(), (), _>("cancel", move |_| {
                token.cancel();
                Ok(())
            })
            .map_err(|e| Error::new(hashline::ErrorCode::Internal, e.reason))?
            .raw();
        call_method(self.env, self.value, c"addEventListener", handler)?;
        Ok(Some(Listener {
            signal: reference(self.env, self.value)?,
            handler: reference(self.env, handler)?,
        }))
    }
}

impl Listener {
    /// Takes the handler off the signal; a failure only leaves a handler
    /// that cancels a call already settled.
    fn remove(self, env: &Env) {
        let env = env.raw();
        let mut signal = ptr::null_mut();
        let mut handler = ptr::null_mut();
        // SAFETY: both references were made on this environment and are
        // deleted only here, once.
        unsafe {
            if sys::napi_get_reference_value(env, self.signal, &mut signal) == sys::Status::napi_ok
                && sys::napi_get_reference_value(env, self.handler, &mut handler)
                    == sys::Status::napi_ok
                && !signal.is_null()
                && !handler.is_null()
            {
                let _ = call_method(env, signal, c"removeEventListener", handler);
            }
            sys::napi_delete_reference(env, self.signal);
            sys::napi_delete_reference(env, self.handler);
        }
    }
}

fn not_a_signal() -> Error {
    Error::invalid_request(
        "`options.signal` must be an AbortSignal (an object with `aborted`, `addEventListener` and `removeEventListener`).",
    )
}

/// `object[name]`; a getter that throws makes it `INVALID_REQUEST`.
fn property(
    env: sys::napi_env,
    object: sys::napi_value,
    name: &CStr,
) -> hashline::Result<sys::napi_value> {
    let mut value = ptr::null_mut();
    // SAFETY: `object` is a live handle of this call; `name` is a C string.
    let status = unsafe { sys::napi_get_named_property(env, object, name.as_ptr(), &mut value) };
    if status != sys::Status::napi_ok {
        clear_exception(env);
        return Err(not_a_signal());
    }
    Ok(value)
}

fn type_of(env: sys::napi_env, value: sys::napi_value) -> hashline::Result<sys::napi_valuetype> {
    let mut kind = 0;
    // SAFETY: `value` is a live handle of this call.
    match unsafe { sys::napi_typeof(env, value, &mut kind) } {
        sys::Status::napi_ok => Ok(kind),
        _ => Err(not_a_signal()),
    }
}

/// `signal[method]("abort", handler)`.
fn call_method(
    env: sys::napi_env,
    signal: sys::napi_value,
    method: &CStr,
    handler: sys::napi_value,
) -> hashline::Result<()> {
    let function = property(env, signal, method)?;
    let mut name = ptr::null_mut();
    let mut result = ptr::null_mut();
    // SAFETY: live handles of this call; `args` holds two values.
    let status = unsafe {
        sys::napi_create_string_utf8(env, ABORT.as_ptr(), 5, &mut name);
        let args = [name, handler];
        sys::napi_call_function(env, signal, function, 2, args.as_ptr(), &mut result)
    };
    if status != sys::Status::napi_ok {
        clear_exception(env);
        return Err(not_a_signal());
    }
    Ok(())
}

fn reference(env: sys::napi_env, value: sys::napi_value) -> hashline::Result<sys::napi_ref> {
    let mut held = ptr::null_mut();
    // SAFETY: `value` is a live handle of this call.
    match unsafe { sys::napi_create_reference(env, value, 1, &mut held) } {
        sys::Status::napi_ok => Ok(held),
        _ => Err(Error::new(
            hashline::ErrorCode::Internal,
            "The signal could not be held for the call.",
        )),
    }
}

/// Drops an exception a failed napi call left pending, so that the error
/// this call answers with is the one that reaches the caller.
fn clear_exception(env: sys::napi_env) {
    let mut pending = false;
    let mut exception = ptr::null_mut();
    // SAFETY: plain queries of the environment's exception state.
    unsafe {
        if sys::napi_is_exception_pending(env, &mut pending) == sys::Status::napi_ok && pending {
            sys::napi_get_and_clear_last_exception(env, &mut exception);
        }
    }
}
