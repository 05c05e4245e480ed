-- Profiles are personal data: they live in their own file, which only `ctool profile` opens.
CREATE TABLE profiles (
    source_file        VARCHAR NOT NULL,
    profile_id         VARCHAR NOT NULL,
    age                INTEGER,         -- NULL: the cell could not be read as a number (a warning)
    gender             VARCHAR NOT NULL,
    user_type          VARCHAR NOT NULL,
    primary_store_id   VARCHAR NOT NULL,
    primary_store_name VARCHAR NOT NULL,
    visits             INTEGER,
    narrative          VARCHAR NOT NULL,
    PRIMARY KEY (source_file, profile_id)
);

CREATE TABLE ctool_meta.build (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);
