// Frozen: the OpenAPI document of the version before this change, where the change altered it
// (written once from that version's committed document; never regenerated).
// The 2026-11-21 document's list parameters, with endding_before, and the descriptions naming it.
import type { DocumentPart } from '../change.ts';

export const DOCUMENT: readonly DocumentPart[] = [
  {
    "pointer": "/paths/~1scenarios/get/description",
    "value": "Newest first, keyset-paginated by id: the last item's id as starting_after gives the next page, the first item's id as endding_before the previous one (at most one of the two). Unknown query parameters are refused."
  },
  {
    "pointer": "/paths/~1scenarios/get/parameters",
    "value": [
      {
        "schema": {
          "type": "integer",
          "format": "int32",
          "description": "Page length, 1\u2013100 (default 10)",
          "minimum": 1,
          "maximum": 100,
          "default": 10,
          "example": 10
        },
        "required": false,
        "description": "Page length, 1\u2013100 (default 10)",
        "name": "limit",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "maxLength": 16,
          "pattern": "^[1-9][0-9]{0,15}$",
          "description": "Next page: items older than this id (the last item's id, e.g. 1042)"
        },
        "required": false,
        "description": "Next page: items older than this id (the last item's id, e.g. 1042)",
        "name": "starting_after",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "maxLength": 16,
          "pattern": "^[1-9][0-9]{0,15}$",
          "description": "Previous page: items newer than this id (the first item's id; spelled as in the spec)"
        },
        "required": false,
        "description": "Previous page: items newer than this id (the first item's id; spelled as in the spec)",
        "name": "endding_before",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "maxLength": 16,
          "pattern": "^[1-9][0-9]{0,15}$",
          "description": "Same as endding_before"
        },
        "required": false,
        "description": "Same as endding_before",
        "name": "ending_before",
        "in": "query"
      },
      {
        "$ref": "#/components/parameters/StateIdFilter"
      },
      {
        "schema": {
          "type": "integer",
          "format": "int32",
          "minimum": 1990,
          "maximum": 2100,
          "description": "Only scenarios of this year"
        },
        "required": false,
        "description": "Only scenarios of this year",
        "name": "year",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "enum": [
            "actc",
            "ctc",
            "eitc",
            "state_tax",
            "state_eitc",
            "child_care",
            "tanf",
            "ssi",
            "liheap",
            "fica",
            "snap",
            "medic_aid",
            "hix_ptc",
            "chip",
            "housing",
            "wic",
            "pandemic",
            "fed_tax",
            "nslp"
          ],
          "description": "Only scenarios whose programs include this one"
        },
        "required": false,
        "description": "Only scenarios whose programs include this one",
        "name": "program",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "maxLength": 40,
          "format": "date-time",
          "description": "Only scenarios created or saved at or after this time (RFC 3339, any offset; an updated_at from a list item works). Pages stay in id order, so a save never moves a scenario within a walk"
        },
        "required": false,
        "description": "Only scenarios created or saved at or after this time (RFC 3339, any offset; an updated_at from a list item works). Pages stay in id order, so a save never moves a scenario within a walk",
        "name": "updated_since",
        "in": "query"
      }
    ]
  },
  {
    "pointer": "/paths/~1events/get/description",
    "value": "Every change to the caller's scenarios (created, saved \u2014 restores too \u2014 and deleted), newest first, kept 30 days. Keyset-paginated by event id: the last item's id as starting_after gives the next page, the first item's id as endding_before the previous one. A cursor that is not one of your kept events is 400 invalid_query. Events are thin: the token and version, never scenario data."
  },
  {
    "pointer": "/paths/~1events/get/parameters",
    "value": [
      {
        "schema": {
          "type": "integer",
          "format": "int32",
          "description": "Page length, 1\u2013100 (default 10)",
          "minimum": 1,
          "maximum": 100,
          "default": 10,
          "example": 10
        },
        "required": false,
        "description": "Page length, 1\u2013100 (default 10)",
        "name": "limit",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "maxLength": 36,
          "pattern": "^evt_[0-9a-f]{32}$",
          "description": "Next page: events older than this one (the last item's id)"
        },
        "required": false,
        "description": "Next page: events older than this one (the last item's id)",
        "name": "starting_after",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "maxLength": 36,
          "pattern": "^evt_[0-9a-f]{32}$",
          "description": "Previous page: events newer than this one (the first item's id; spelled as in the spec)"
        },
        "required": false,
        "description": "Previous page: events newer than this one (the first item's id; spelled as in the spec)",
        "name": "endding_before",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "maxLength": 36,
          "pattern": "^evt_[0-9a-f]{32}$",
          "description": "Same as endding_before"
        },
        "required": false,
        "description": "Same as endding_before",
        "name": "ending_before",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "enum": [
            "scenario.created",
            "scenario.saved",
            "scenario.deleted"
          ],
          "description": "Only events of this type"
        },
        "required": false,
        "description": "Only events of this type",
        "name": "type",
        "in": "query"
      }
    ]
  },
  {
    "pointer": "/paths/~1scenarios~1{token}~1revisions/get/parameters",
    "value": [
      {
        "$ref": "#/components/parameters/ScenarioToken"
      },
      {
        "schema": {
          "type": "integer",
          "format": "int32",
          "description": "Page length, 1\u2013100 (default 10)",
          "minimum": 1,
          "maximum": 100,
          "default": 10,
          "example": 10
        },
        "required": false,
        "description": "Page length, 1\u2013100 (default 10)",
        "name": "limit",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "maxLength": 16,
          "pattern": "^[1-9][0-9]{0,15}$",
          "description": "Next page: items older than this version (the last item's version, e.g. 3)"
        },
        "required": false,
        "description": "Next page: items older than this version (the last item's version, e.g. 3)",
        "name": "starting_after",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "maxLength": 16,
          "pattern": "^[1-9][0-9]{0,15}$",
          "description": "Previous page: items newer than this version (the first item's version; spelled as in the spec)"
        },
        "required": false,
        "description": "Previous page: items newer than this version (the first item's version; spelled as in the spec)",
        "name": "endding_before",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "maxLength": 16,
          "pattern": "^[1-9][0-9]{0,15}$",
          "description": "Same as endding_before"
        },
        "required": false,
        "description": "Same as endding_before",
        "name": "ending_before",
        "in": "query"
      }
    ]
  },
  {
    "pointer": "/paths/~1webhook_endpoints~1{id}~1deliveries/get/parameters",
    "value": [
      {
        "$ref": "#/components/parameters/WebhookEndpointId"
      },
      {
        "schema": {
          "type": "integer",
          "format": "int32",
          "description": "Page length, 1\u2013100 (default 10)",
          "minimum": 1,
          "maximum": 100,
          "default": 10,
          "example": 10
        },
        "required": false,
        "description": "Page length, 1\u2013100 (default 10)",
        "name": "limit",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "maxLength": 16,
          "pattern": "^[1-9][0-9]{0,15}$",
          "description": "Next page: attempts older than this one (the last item's id)"
        },
        "required": false,
        "description": "Next page: attempts older than this one (the last item's id)",
        "name": "starting_after",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "maxLength": 16,
          "pattern": "^[1-9][0-9]{0,15}$",
          "description": "Previous page: attempts newer than this one (the first item's id; spelled as in the spec)"
        },
        "required": false,
        "description": "Previous page: attempts newer than this one (the first item's id; spelled as in the spec)",
        "name": "endding_before",
        "in": "query"
      },
      {
        "schema": {
          "type": "string",
          "maxLength": 16,
          "pattern": "^[1-9][0-9]{0,15}$",
          "description": "Same as endding_before"
        },
        "required": false,
        "description": "Same as endding_before",
        "name": "ending_before",
        "in": "query"
      }
    ]
  }
];
