//! The keys a section of the schema takes, read from its own `Deserialize`
//! (the field lists serde derives), not from a list kept by hand: a test
//! that sweeps every key of a section (issue 38: "a test per rule that
//! sweeps every key") then also covers the keys added after it.

use serde::de::value::{Error, StrDeserializer};
use serde::de::{DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::cell::RefCell;

/// What a key holds, as its type asks for it.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Int,
    Real,
    Bool,
    Text,
    /// A table of these keys, in the order the type declares them.
    Table(Vec<(String, Shape)>),
    /// A list of one shape (`[[fabric.fail]]`: of tables).
    List(Box<Shape>),
    /// A key that may be left out (no default).
    Optional(Box<Shape>),
}

/// The shape of `T`, as its `Deserialize` asks for it.
pub fn shape<T: for<'de> Deserialize<'de>>() -> Shape {
    let out = RefCell::new(None);
    T::deserialize(Tracer { out: &out }).expect("the tracer hands every type what it asks for");
    out.into_inner().expect("the type asked for something")
}

/// Every key below a table shape, dotted (a list's items are not entered:
/// `fabric.fail` is one key), with its shape.
pub fn keys(prefix: &str, shape: &Shape) -> Vec<(String, Shape)> {
    let Shape::Table(fields) = shape else { return vec![(prefix.to_string(), shape.clone())] };
    fields.iter().flat_map(|(name, s)| keys(&format!("{prefix}.{name}"), s)).collect()
}

/// Hands each type the least it asks for, writing down what it asked for.
struct Tracer<'a> {
    out: &'a RefCell<Option<Shape>>,
}

impl Tracer<'_> {
    fn put(&self, s: Shape) {
        *self.out.borrow_mut() = Some(s);
    }
}

/// Traces one nested value into a shape of its own.
fn nested<'de, T: DeserializeSeed<'de>>(seed: T) -> Result<(T::Value, Shape), Error> {
    let out = RefCell::new(None);
    let v = seed.deserialize(Tracer { out: &out })?;
    Ok((v, out.into_inner().unwrap_or(Shape::Text)))
}

macro_rules! leaf {
    ($($method:ident => $shape:expr, $visit:ident($value:expr);)*) => {
        $(fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            self.put($shape);
            v.$visit($value)
        })*
    };
}

impl<'de> Deserializer<'de> for Tracer<'_> {
    type Error = Error;

    leaf! {
        deserialize_u8 => Shape::Int, visit_u64(0);
        deserialize_u16 => Shape::Int, visit_u64(0);
        deserialize_u32 => Shape::Int, visit_u64(0);
        deserialize_u64 => Shape::Int, visit_u64(0);
        deserialize_i8 => Shape::Int, visit_i64(0);
        deserialize_i16 => Shape::Int, visit_i64(0);
        deserialize_i32 => Shape::Int, visit_i64(0);
        deserialize_i64 => Shape::Int, visit_i64(0);
        deserialize_f32 => Shape::Real, visit_f64(0.0);
        deserialize_f64 => Shape::Real, visit_f64(0.0);
        deserialize_bool => Shape::Bool, visit_bool(false);
        deserialize_str => Shape::Text, visit_str("");
        deserialize_string => Shape::Text, visit_str("");
        deserialize_any => Shape::Text, visit_str("");
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let (value, inner) = nested(PhantomSome(v))?;
        self.put(Shape::Optional(Box::new(inner)));
        Ok(value)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let mut items = OneItem { shape: None };
        let value = v.visit_seq(&mut items)?;
        self.put(Shape::List(Box::new(items.shape.unwrap_or(Shape::Text))));
        Ok(value)
    }

    fn deserialize_struct<V: Visitor<'de>>(self, _: &'static str, fields: &'static [&'static str], v: V) -> Result<V::Value, Error> {
        let mut map = Fields { fields, next: 0, shapes: Vec::new() };
        let value = v.visit_map(&mut map)?;
        self.put(Shape::Table(map.shapes));
        Ok(value)
    }

    fn deserialize_enum<V: Visitor<'de>>(self, _: &'static str, variants: &'static [&'static str], v: V) -> Result<V::Value, Error> {
        // A choice of words (a unit variant each): the first will do.
        self.put(Shape::Text);
        v.visit_enum(variants[0].into_deserializer())
    }

    serde::forward_to_deserialize_any! {
        i128 u128 char bytes byte_buf unit unit_struct newtype_struct tuple tuple_struct map identifier ignored_any
    }
}

/// `Some` of whatever the option holds.
struct PhantomSome<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for PhantomSome<V> {
    type Value = V::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_some(d)
    }
}

/// A list of one item, traced.
struct OneItem {
    shape: Option<Shape>,
}

impl<'de> SeqAccess<'de> for &mut OneItem {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        if self.shape.is_some() {
            return Ok(None);
        }
        let (v, s) = nested(seed)?;
        self.shape = Some(s);
        Ok(Some(v))
    }
}

/// A table with every field the type names, each traced.
struct Fields {
    fields: &'static [&'static str],
    next: usize,
    shapes: Vec<(String, Shape)>,
}

impl<'de> MapAccess<'de> for &mut Fields {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some(name) = self.fields.get(self.next) else { return Ok(None) };
        seed.deserialize(StrDeserializer::<Error>::new(name)).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let (v, s) = nested(seed)?;
        self.shapes.push((self.fields[self.next].to_string(), s));
        self.next += 1;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::schema_fabric::FabricSection;

    #[test]
    fn the_fabric_section_traces_to_its_declared_keys() {
        let keys: Vec<String> = keys("fabric", &shape::<FabricSection>()).into_iter().map(|(k, _)| k).collect();
        // A few of each kind: plain, nested, optional, a list of numbers, a list of tables.
        for k in ["fabric.faps", "fabric.voq.buffer", "fabric.voq.ecn_above", "fabric.llfc.n3", "fabric.scheduler.weights", "fabric.fail"] {
            assert!(keys.contains(&k.to_string()), "{k} in {keys:?}");
        }
        let s = shape::<FabricSection>();
        let Shape::Table(fields) = &s else { panic!("{s:?}") };
        let fail = &fields.iter().find(|(k, _)| k == "fail").unwrap().1;
        assert!(
            matches!(fail, Shape::List(item) if matches!(**item, Shape::Table(ref t) if t.iter().any(|(k, _)| k == "link"))),
            "{fail:?}"
        );
        assert_eq!(fields.iter().find(|(k, _)| k == "faps").unwrap().1, Shape::Int);
        assert_eq!(fields.iter().find(|(k, _)| k == "group_faps").unwrap().1, Shape::Optional(Box::new(Shape::Int)));
    }
}
