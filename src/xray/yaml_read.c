/* yaml_read: to be written. */
