//! # margin-derive: one declaration per hyperparameter
//!
//! `#[derive(Params)]` on a struct of hyperparameters writes, from one `#[param(...)]`
//! attribute per field, everything margin needs to know about the parameter: its descriptor
//! (`margin_core::params::Params`, read by the command line, parameter files, model files,
//! grids and the Python classes), the struct's `Default`, a builder method per field (documented
//! with the field's own doc comment) and the range checks. It is re-exported by `margin-core`
//! as `margin_core::params::Params`, where the attributes are documented with an example; this
//! crate is not meant to be depended on directly.
//!
//! Field attributes, `#[param(...)]`:
//! - `help = "…"` (required): the one-line help;
//! - `name = "C"`: the parameter's name when it is not the field's (scikit-learn's spelling);
//! - `default = EXPR`: the default (else `Default::default()`);
//! - `valid = ("phrase", |v| …)`: the values allowed, as a phrase and a test of `&T`;
//! - `applies = ("phrase", |p| …)`: when the parameter is used, as a phrase and a test of the
//!   struct;
//! - `ty = T, get = EXPR, set = EXPR`: a parameter whose text type is not the field's, or that
//!   is stored through a function (`get: fn(&Self) -> T`, `set: fn(&mut Self, T)`);
//! - `setter(into)`, `setter(strip_option)`, `setter(skip)` and
//!   `setter(via = EXPR, arg = T)`: how the builder method takes its value (`via` is
//!   `fn(&mut Self, T, &Self)`, called with the struct's defaults as the third argument). A
//!   builder takes the field's type, and stores it through `set` when the field has one and no
//!   `ty`;
//! - `flatten`: the field is a settings block (a struct with `#[params(block)]`) whose
//!   parameters and builder methods become this struct's; `help_for(name = "…")` words the
//!   help of the block's parameters named for this struct, and
//!   `valid_for(name = ("phrase", |p| …))` their allowed values (a test of this struct);
//! - `skip`: the field is not a parameter (it still takes `default`).
//!
//! Struct attributes, `#[params(...)]`: `check = EXPR` (`fn(&Self) -> Result<()>`, rules that
//! tie parameters together), `order(field, …)` (the listing order, when it is not the fields'
//! order, which model files fix; `block::name` lists one parameter of a flattened block apart
//! from the rest of it), and `block` (a settings block other structs flatten: its
//! builder methods are written onto each of them instead of onto the block). A block names the
//! types of its fields, and any function it gives `set` or `via`, by paths that resolve from the
//! structs that flatten it (`crate::…`, or another crate's name).

use proc_macro::TokenStream;
use proc_macro2::{Ident, Punct, Spacing, Span, TokenStream as Tokens, TokenTree};
use quote::{ToTokens, format_ident, quote};
use syn::spanned::Spanned;
use syn::{
    Attribute, Data, DeriveInput, Expr, ExprLit, Fields, GenericArgument, Lit, LitStr,
    PathArguments, Type,
};

/// Derives `margin_core::params::Params`, `Default` and the builder methods of a struct of
/// hyperparameters (see the crate documentation for the attributes).
#[proc_macro_derive(Params, attributes(param, params))]
pub fn derive_params(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// How a field's builder method takes its value.
enum Setter {
    /// `fn field(self, v: T)`.
    Plain,
    /// `fn field(self, v: impl Into<T>)`.
    Into,
    /// `fn field(self, v: X)` for a field of type `Option<X>`, storing `Some(v)`.
    StripOption(Type),
    /// `fn field(self, v: impl Into<A>)`, stored by `via(&mut block, v.into(), &defaults)`.
    Via { via: Expr, arg: Type },
    /// No builder method.
    Skip,
}

/// A parameter field.
struct Param {
    name: LitStr,
    help: LitStr,
    valid: Option<(LitStr, Expr)>,
    applies: Option<(LitStr, Expr)>,
    /// The text type, when it is not the field's (with `get` and `set`).
    ty: Option<Type>,
    get: Option<Expr>,
    set: Option<Expr>,
    setter: Setter,
}

enum Role {
    Param(Box<Param>),
    Flatten(Box<Flat>),
    Skip,
}

/// A flattened block's per-struct wording: help lines and allowed values of its parameters.
struct Flat {
    help_for: Vec<(LitStr, LitStr)>,
    valid_for: Vec<(LitStr, LitStr, Expr)>,
}

struct Field {
    ident: Ident,
    ty: Type,
    docs: Vec<Attribute>,
    default: Option<Expr>,
    role: Role,
}

#[derive(Default)]
struct StructOpts {
    check: Option<Expr>,
    block: bool,
    order: Option<Vec<OrderItem>>,
}

/// An entry of `#[params(order(...))]`: a field, or one parameter of a flattened block
/// (`block::name`), listed apart from the rest of its block.
struct OrderItem {
    field: Ident,
    name: Option<Ident>,
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "#[derive(Params)] takes a struct without generic parameters",
        ));
    }
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            "#[derive(Params)] takes a struct with named fields",
        ));
    };
    let Fields::Named(named) = &data.fields else {
        return Err(syn::Error::new(
            input.ident.span(),
            "#[derive(Params)] takes a struct with named fields",
        ));
    };
    let opts = struct_opts(&input.attrs)?;
    let fields = named
        .named
        .iter()
        .map(field)
        .collect::<syn::Result<Vec<_>>>()?;
    let listed = listing(&fields, opts.order.as_deref())?;

    let this = &input.ident;
    let params_impl = params_impl(this, &listed, &fields, opts.check.as_ref());
    let default_impl = default_impl(this, &fields);
    let builders = if opts.block {
        block_macro(this, &fields)
    } else {
        builders(this, &fields)
    };
    Ok(quote! {
        #params_impl
        #default_impl
        #builders
    })
}

fn struct_opts(attrs: &[Attribute]) -> syn::Result<StructOpts> {
    let mut opts = StructOpts::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("params")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("check") {
                opts.check = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("block") {
                opts.block = true;
            } else if meta.path.is_ident("order") {
                let mut order = Vec::new();
                meta.parse_nested_meta(|item| {
                    let segments: Vec<&Ident> =
                        item.path.segments.iter().map(|s| &s.ident).collect();
                    match segments[..] {
                        [field] => order.push(OrderItem {
                            field: field.clone(),
                            name: None,
                        }),
                        [field, name] => order.push(OrderItem {
                            field: field.clone(),
                            name: Some(name.clone()),
                        }),
                        _ => return Err(item.error("expected `field` or `block::parameter`")),
                    }
                    Ok(())
                })?;
                opts.order = Some(order);
            } else {
                return Err(meta.error("expected `check = …`, `block` or `order(…)`"));
            }
            Ok(())
        })?;
    }
    Ok(opts)
}

/// A `("phrase", expr)` pair.
fn phrase_and_test(expr: Expr) -> syn::Result<(LitStr, Expr)> {
    let span = expr.span();
    if let Expr::Tuple(tuple) = expr
        && tuple.elems.len() == 2
    {
        let mut elems = tuple.elems.into_iter();
        if let (
            Some(Expr::Lit(ExprLit {
                lit: Lit::Str(phrase),
                ..
            })),
            Some(test),
        ) = (elems.next(), elems.next())
        {
            return Ok((phrase, test));
        }
    }
    Err(syn::Error::new(span, "expected (\"phrase\", |…| test)"))
}

fn field(f: &syn::Field) -> syn::Result<Field> {
    let ident = f.ident.clone().expect("named fields");
    let docs = f
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .cloned()
        .collect();
    let mut default = None;
    let (mut name, mut help, mut valid, mut applies) = (None, None, None, None);
    let (mut ty, mut get, mut set) = (None, None, None);
    let (mut flatten, mut skip, mut help_for) = (false, false, Vec::new());
    let mut valid_for = Vec::new();
    let mut setter = Setter::Plain;
    let mut seen = false;
    for attr in f.attrs.iter().filter(|a| a.path().is_ident("param")) {
        seen = true;
        attr.parse_nested_meta(|meta| {
            let p = &meta.path;
            if p.is_ident("name") {
                name = Some(meta.value()?.parse()?);
            } else if p.is_ident("help") {
                help = Some(meta.value()?.parse()?);
            } else if p.is_ident("default") {
                default = Some(meta.value()?.parse()?);
            } else if p.is_ident("valid") {
                valid = Some(phrase_and_test(meta.value()?.parse()?)?);
            } else if p.is_ident("applies") {
                applies = Some(phrase_and_test(meta.value()?.parse()?)?);
            } else if p.is_ident("ty") {
                ty = Some(meta.value()?.parse()?);
            } else if p.is_ident("get") {
                get = Some(meta.value()?.parse()?);
            } else if p.is_ident("set") {
                set = Some(meta.value()?.parse()?);
            } else if p.is_ident("flatten") {
                flatten = true;
            } else if p.is_ident("skip") {
                skip = true;
            } else if p.is_ident("help_for") {
                meta.parse_nested_meta(|item| {
                    let name = item.path.require_ident()?;
                    let text: LitStr = item.value()?.parse()?;
                    help_for.push((LitStr::new(&name.to_string(), name.span()), text));
                    Ok(())
                })?;
            } else if p.is_ident("valid_for") {
                meta.parse_nested_meta(|item| {
                    let name = item.path.require_ident()?;
                    let (phrase, test) = phrase_and_test(item.value()?.parse()?)?;
                    valid_for.push((LitStr::new(&name.to_string(), name.span()), phrase, test));
                    Ok(())
                })?;
            } else if p.is_ident("setter") {
                let (mut via, mut arg) = (None, None);
                meta.parse_nested_meta(|item| {
                    if item.path.is_ident("into") {
                        setter = Setter::Into;
                    } else if item.path.is_ident("strip_option") {
                        setter = Setter::StripOption(option_inner(&f.ty).ok_or_else(|| {
                            item.error("strip_option needs a field of type Option<T>")
                        })?);
                    } else if item.path.is_ident("skip") {
                        setter = Setter::Skip;
                    } else if item.path.is_ident("via") {
                        via = Some(item.value()?.parse()?);
                    } else if item.path.is_ident("arg") {
                        arg = Some(item.value()?.parse()?);
                    } else {
                        return Err(item.error(
                            "expected `into`, `strip_option`, `skip`, or `via = …, arg = …`",
                        ));
                    }
                    Ok(())
                })?;
                match (via, arg) {
                    (Some(via), Some(arg)) => setter = Setter::Via { via, arg },
                    (None, None) => {}
                    _ => return Err(meta.error("`via` and `arg` go together")),
                }
            } else {
                return Err(meta.error("unknown #[param] key"));
            }
            Ok(())
        })?;
    }
    let role = if skip || !seen {
        Role::Skip
    } else if flatten {
        Role::Flatten(Box::new(Flat {
            help_for,
            valid_for,
        }))
    } else {
        let help =
            help.ok_or_else(|| syn::Error::new(ident.span(), "a parameter needs `help = \"…\"`"))?;
        if ty.is_some() && (get.is_none() || set.is_none()) {
            return Err(syn::Error::new(ident.span(), "`ty` needs `get` and `set`"));
        }
        let plain = ident.to_string();
        let name = name.unwrap_or_else(|| {
            LitStr::new(plain.strip_prefix("r#").unwrap_or(&plain), ident.span())
        });
        Role::Param(Box::new(Param {
            name,
            help,
            valid,
            applies,
            ty,
            get,
            set,
            setter,
        }))
    };
    if !seen {
        // A field without #[param] is an error rather than silently not a parameter.
        return Err(syn::Error::new(
            ident.span(),
            "every field needs #[param(...)] (or #[param(skip)] for one that is not a parameter)",
        ));
    }
    Ok(Field {
        ident,
        ty: f.ty.clone(),
        docs,
        default,
        role,
    })
}

/// `T` of `Option<T>`.
fn option_inner(ty: &Type) -> Option<Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(t) => Some(t.clone()),
        _ => None,
    }
}

/// One entry of the listing: a parameter field, a block (without the parameters listed
/// apart), or one parameter of a block.
enum Entry<'a> {
    Whole(&'a Field, Vec<String>),
    One(&'a Field, Ident),
}

/// The parameter and block fields in listing order.
fn listing<'a>(fields: &'a [Field], order: Option<&[OrderItem]>) -> syn::Result<Vec<Entry<'a>>> {
    let listed: Vec<&Field> = fields
        .iter()
        .filter(|f| !matches!(f.role, Role::Skip))
        .collect();
    let Some(order) = order else {
        return Ok(listed
            .into_iter()
            .map(|f| Entry::Whole(f, Vec::new()))
            .collect());
    };
    let mut out = Vec::with_capacity(order.len());
    for (i, item) in order.iter().enumerate() {
        let ident = &item.field;
        let field = listed.iter().find(|f| f.ident == *ident).ok_or_else(|| {
            syn::Error::new(ident.span(), "order names a field that is not a parameter")
        })?;
        match &item.name {
            None => {
                if order[..i]
                    .iter()
                    .any(|o| o.field == *ident && o.name.is_none())
                {
                    return Err(syn::Error::new(
                        ident.span(),
                        "order names this field twice",
                    ));
                }
                let apart = order
                    .iter()
                    .filter(|o| o.field == *ident)
                    .filter_map(|o| o.name.as_ref().map(ToString::to_string))
                    .collect();
                out.push(Entry::Whole(field, apart));
            }
            Some(name) => {
                if !matches!(field.role, Role::Flatten(_)) {
                    return Err(syn::Error::new(
                        name.span(),
                        "`field::parameter` names a parameter of a flattened block",
                    ));
                }
                out.push(Entry::One(field, name.clone()));
            }
        }
    }
    if let Some(missing) = listed
        .iter()
        .find(|f| !order.iter().any(|o| o.field == f.ident && o.name.is_none()))
    {
        return Err(syn::Error::new(
            missing.ident.span(),
            "this field is missing from #[params(order(...))]",
        ));
    }
    Ok(out)
}

fn params_impl(
    this: &Ident,
    listed: &[Entry<'_>],
    fields: &[Field],
    check: Option<&Expr>,
) -> Tokens {
    let entries = listed.iter().map(|entry| {
        let f = match entry {
            Entry::Whole(f, _) | Entry::One(f, _) => *f,
        };
        let ident = &f.ident;
        let field_ty = &f.ty;
        match &f.role {
            Role::Param(p) => {
                let ty = p.ty.as_ref().unwrap_or(field_ty);
                let (name, help) = (&p.name, &p.help);
                let (allowed, valid) = phrase_option(p.valid.as_ref());
                let (applies, used) = phrase_option(p.applies.as_ref());
                let get = p.get.as_ref().map_or_else(
                    || quote!(|p: &#this| -> #ty { ::std::clone::Clone::clone(&p.#ident) }),
                    ToTokens::to_token_stream,
                );
                let set = p.set.as_ref().map_or_else(
                    || quote!(|p: &mut #this, v: #ty| p.#ident = v),
                    ToTokens::to_token_stream,
                );
                quote! {
                    all.push(::margin_core::params::Param::<#this>::new::<#ty>(
                        ::margin_core::params::ParamParts {
                            name: #name,
                            help: #help,
                            valid: (#allowed, #valid),
                            applies: (#applies, #used),
                            get: #get,
                            set: #set,
                        },
                    ));
                }
            }
            Role::Flatten(flat) => {
                let names = flat.help_for.iter().map(|(n, _)| n);
                let helps = flat.help_for.iter().map(|(_, h)| h);
                let revalid = flat.valid_for.iter().map(|(name, phrase, test)| {
                    quote! {
                        ::margin_core::params::Param::<#this>::revalidate(
                            &mut block, #name, #phrase, #test,
                        );
                    }
                });
                // Which of the block's parameters this entry lists.
                let (pick, one) = match entry {
                    Entry::Whole(_, apart) => (quote!(|p| ![#(#apart),*].contains(&p.name)), false),
                    Entry::One(_, name) => {
                        let name = name.to_string();
                        (quote!(|p| p.name == #name), true)
                    }
                };
                quote! {
                    {
                        #[allow(unused_mut)]
                        let mut block = ::margin_core::params::Param::<#this>::nested::<#field_ty>(
                            |p: &#this| &p.#ident,
                            |p: &mut #this| &mut p.#ident,
                            &[#((#names, #helps)),*],
                        );
                        #(#revalid)*
                        let before = all.len();
                        let pick: fn(&::margin_core::params::Param<#this>) -> bool = #pick;
                        all.extend(block.into_iter().filter(pick));
                        assert!(
                            !#one || all.len() == before + 1,
                            "#[params(order(...))] names a parameter its block does not have",
                        );
                    }
                }
            }
            Role::Skip => unreachable!("skipped fields are not listed"),
        }
    });
    let blocks = fields
        .iter()
        .filter(|f| matches!(f.role, Role::Flatten(_)))
        .map(|f| {
            let ident = &f.ident;
            quote!(::margin_core::params::Params::check_together(&self.#ident)?;)
        });
    let own = check.map(|check| {
        quote! {
            let own: fn(&#this) -> ::margin_core::Result<()> = #check;
            own(self)?;
        }
    });
    quote! {
        impl ::margin_core::params::Params for #this {
            fn params() -> &'static [::margin_core::params::Param<Self>] {
                static PARAMS: ::std::sync::OnceLock<
                    ::std::vec::Vec<::margin_core::params::Param<#this>>,
                > = ::std::sync::OnceLock::new();
                PARAMS.get_or_init(|| {
                    let mut all = ::std::vec::Vec::new();
                    #(#entries)*
                    all
                })
            }

            fn check_together(&self) -> ::margin_core::Result<()> {
                #(#blocks)*
                #own
                ::std::result::Result::Ok(())
            }
        }
    }
}

fn phrase_option(pair: Option<&(LitStr, Expr)>) -> (Tokens, Tokens) {
    match pair {
        Some((phrase, test)) => (
            phrase.to_token_stream(),
            quote!(::std::option::Option::Some(#test)),
        ),
        None => (quote!(""), quote!(::std::option::Option::None)),
    }
}

fn default_impl(this: &Ident, fields: &[Field]) -> Tokens {
    let inits = fields.iter().map(|f| {
        let ident = &f.ident;
        match &f.default {
            Some(d) => quote!(#ident: #d),
            None => quote!(#ident: ::std::default::Default::default()),
        }
    });
    quote! {
        impl ::std::default::Default for #this {
            fn default() -> Self {
                Self { #(#inits),* }
            }
        }
    }
}

/// The doc comment of a builder method: the field's, else the help line.
fn setter_docs(f: &Field, p: &Param) -> Tokens {
    if f.docs.is_empty() {
        let help = &p.help;
        quote!(#[doc = #help])
    } else {
        let docs = &f.docs;
        quote!(#(#docs)*)
    }
}

/// The builder method of a parameter field: `place` is the struct the field is declared in, as
/// reached from `self` (`self` itself, or a path through blocks), and `defaults` the default
/// value of that struct as the builder's type holds it.
fn setter(
    f: &Field,
    p: &Param,
    block: &Tokens,
    place: &Tokens,
    defaults: &Tokens,
) -> Option<Tokens> {
    let ident = &f.ident;
    // A builder takes the field's own type: through `set` when the text type is the field's
    // (`set` may do more than store), straight into the field when the text type differs
    // (`ty`) or the builder wraps the value in `Some`.
    let ty = &f.ty;
    let direct = p.ty.is_some() || matches!(p.setter, Setter::StripOption(_));
    let docs = setter_docs(f, p);
    let store = |value: Tokens| match &p.set {
        Some(set) if !direct => quote! {
            let set: fn(&mut #block, #ty) = #set;
            set(&mut #place, #value);
        },
        _ => quote!(#place.#ident = #value;),
    };
    let (arg, body) = match &p.setter {
        Setter::Skip => return None,
        Setter::Plain => (quote!(#ty), store(quote!(v))),
        Setter::Into => (
            quote!(impl ::std::convert::Into<#ty>),
            store(quote!(v.into())),
        ),
        Setter::StripOption(inner) => (
            quote!(#inner),
            store(quote!(::std::option::Option::Some(v))),
        ),
        Setter::Via { via, arg } => (
            quote!(impl ::std::convert::Into<#arg>),
            quote! {
                let via: fn(&mut #block, #arg, &#block) = #via;
                let defaults = #defaults;
                via(&mut #place, v.into(), &defaults);
            },
        ),
    };
    Some(quote! {
        #docs
        pub fn #ident(mut self, v: #arg) -> Self {
            #body
            self
        }
    })
}

/// The builder methods of a struct's own parameters, and those of the blocks it flattens.
fn builders(this: &Ident, fields: &[Field]) -> Tokens {
    let own: Vec<Tokens> = fields
        .iter()
        .filter_map(|f| match &f.role {
            Role::Param(p) => setter(
                f,
                p,
                &quote!(#this),
                &quote!(self),
                &quote!(<#this as ::std::default::Default>::default()),
            ),
            _ => None,
        })
        .collect();
    let blocks = fields.iter().filter_map(|f| match f.role {
        Role::Flatten(_) => {
            let (ident, ty) = (&f.ident, &f.ty);
            Some(quote!(#ty!(#this; #ty; #ident);))
        }
        _ => None,
    });
    quote! {
        impl #this {
            #(#own)*
        }
        #(#blocks)*
    }
}

/// A block's builder methods, as a macro the structs that flatten it call (through the derive)
/// with their own type, the block's type and the path to the block:
/// `Block!(Outer; Block; settings.kernel)`. It is
/// exported under a hidden name and re-exported next to the block under the block's own name
/// (macros and types live in different namespaces), so wherever the block's type is in scope
/// by some path, so is its macro by the same path.
fn block_macro(this: &Ident, fields: &[Field]) -> Tokens {
    let name = format_ident!("__margin_params_{}", this);
    let place = quote!(self.$($path).+);
    let defaults = quote!(<$outer as ::std::default::Default>::default().$($path).+);
    let setters = fields.iter().filter_map(|f| match &f.role {
        Role::Param(p) => {
            setter(f, p, &quote!($block), &place, &defaults).map(|t| dollar_crate(&t))
        }
        _ => None,
    });
    let nested = fields.iter().filter_map(|f| match f.role {
        Role::Flatten(_) => {
            let ident = &f.ident;
            let ty = dollar_crate(&f.ty.to_token_stream());
            Some(quote!(#ty!($outer; #ty; $($path).+ . #ident);))
        }
        _ => None,
    });
    quote! {
        #[doc(hidden)]
        #[macro_export]
        macro_rules! #name {
            ($outer:ty; $block:ty; $($path:ident).+) => {
                impl $outer {
                    #(#setters)*
                }
                #(#nested)*
            };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub use #name as #this;
    }
}

/// `tokens` with every `crate` written `$crate`, so that paths a block names resolve from the
/// crates whose structs flatten it.
fn dollar_crate(tokens: &Tokens) -> Tokens {
    tokens
        .clone()
        .into_iter()
        .flat_map(|tree| -> Vec<TokenTree> {
            match tree {
                TokenTree::Ident(ref i) if i == "crate" => vec![
                    TokenTree::Punct(Punct::new('$', Spacing::Joint)),
                    TokenTree::Ident(Ident::new("crate", Span::call_site())),
                ],
                TokenTree::Group(g) => {
                    let mut group =
                        proc_macro2::Group::new(g.delimiter(), dollar_crate(&g.stream()));
                    group.set_span(g.span());
                    vec![TokenTree::Group(group)]
                }
                other => vec![other],
            }
        })
        .collect()
}
