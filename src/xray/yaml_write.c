/* yaml_write: to be written. */
