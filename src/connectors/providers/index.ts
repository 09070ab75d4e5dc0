/**
 * THE list of connectors. Adding one: a folder `providers/<name>/` whose index.ts exports its declaration
 * (`export default declareConnector({ … })`), one import and one entry below. Order is the
 * catalog's order.
 */
import type { ConnectorDeclarationInput } from "../declaration.ts";
import github from "./github/index.ts";
import gmail from "./gmail/index.ts";
import jira from "./jira/index.ts";
import slack from "./slack/index.ts";
import airtable from "./airtable/index.ts";
import asana from "./asana/index.ts";
import bitbucket from "./bitbucket/index.ts";
import box from "./box/index.ts";
import calendly from "./calendly/index.ts";
import clickup from "./clickup/index.ts";
import discord from "./discord/index.ts";
import docusign from "./docusign/index.ts";
import dropbox from "./dropbox/index.ts";
import figma from "./figma/index.ts";
import gitlab from "./gitlab/index.ts";
import google_calendar from "./google_calendar/index.ts";
import google_drive from "./google_drive/index.ts";
import hubspot from "./hubspot/index.ts";
import intercom from "./intercom/index.ts";
import linear from "./linear/index.ts";
import microsoft from "./microsoft/index.ts";
import monday from "./monday/index.ts";
import notion from "./notion/index.ts";
import pagerduty from "./pagerduty/index.ts";
import pipedrive from "./pipedrive/index.ts";
import quickbooks from "./quickbooks/index.ts";
import salesforce from "./salesforce/index.ts";
import sentry from "./sentry/index.ts";
import spotify from "./spotify/index.ts";
import square from "./square/index.ts";
import stripe from "./stripe/index.ts";
import todoist from "./todoist/index.ts";
import typeform from "./typeform/index.ts";
import xero from "./xero/index.ts";
import zoom from "./zoom/index.ts";
import switchyard from "./switchyard/index.ts";

export const providers: readonly ConnectorDeclarationInput[] = [
  gmail,
  github,
  jira,
  slack,
  airtable,
  asana,
  bitbucket,
  box,
  calendly,
  clickup,
  discord,
  docusign,
  dropbox,
  figma,
  gitlab,
  google_calendar,
  google_drive,
  hubspot,
  intercom,
  linear,
  microsoft,
  monday,
  notion,
  pagerduty,
  pipedrive,
  quickbooks,
  salesforce,
  sentry,
  spotify,
  square,
  stripe,
  todoist,
  typeform,
  xero,
  zoom,
  switchyard,
];
