/**
 * THE list of connectors. Adding one: a file `providers/<name>.ts` exporting its declaration
 * (`export default declareConnector({ … })`), one import and one entry below. Order is the
 * catalog's order.
 */
import type { ConnectorDeclarationInput } from "../declaration.ts";
import github from "./github.ts";
import gmail from "./gmail.ts";
import jira from "./jira.ts";
import slack from "./slack.ts";
import airtable from "./airtable.ts";
import asana from "./asana.ts";
import bitbucket from "./bitbucket.ts";
import box from "./box.ts";
import calendly from "./calendly.ts";
import clickup from "./clickup.ts";
import discord from "./discord.ts";
import docusign from "./docusign.ts";
import dropbox from "./dropbox.ts";
import figma from "./figma.ts";
import gitlab from "./gitlab.ts";
import google_calendar from "./google_calendar.ts";
import google_drive from "./google_drive.ts";
import hubspot from "./hubspot.ts";
import intercom from "./intercom.ts";
import linear from "./linear.ts";
import microsoft from "./microsoft.ts";
import monday from "./monday.ts";
import notion from "./notion.ts";
import pagerduty from "./pagerduty.ts";
import pipedrive from "./pipedrive.ts";
import quickbooks from "./quickbooks.ts";
import salesforce from "./salesforce.ts";
import sentry from "./sentry.ts";
import spotify from "./spotify.ts";
import square from "./square.ts";
import stripe from "./stripe.ts";
import todoist from "./todoist.ts";
import typeform from "./typeform.ts";
import xero from "./xero.ts";
import zoom from "./zoom.ts";

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
];
