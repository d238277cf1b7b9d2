//! `serde_with::rust::double_option`, as serde_with 3 defines it: an optional field that may also
//! be null (`None`: absent, `Some(None)`: null, `Some(Some(v))`: a value).

pub mod rust {
    pub mod double_option {
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        pub fn deserialize<'de, T, D>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
        where
            T: Deserialize<'de>,
            D: Deserializer<'de>,
        {
            Deserialize::deserialize(deserializer).map(Some)
        }

        pub fn serialize<S, T>(values: &Option<Option<T>>, serializer: S) -> Result<S::Ok, S::Error>
        where
            S: Serializer,
            T: Serialize,
        {
            match values {
                None => serializer.serialize_unit(),
                Some(None) => serializer.serialize_none(),
                Some(Some(v)) => serializer.serialize_some(&v),
            }
        }
    }
}
